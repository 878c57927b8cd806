import { type ReactNode, useCallback, useState } from 'react';
import { api, type DiscoveryRun, errorText, ok, type Server, shortName, type Tool } from '../api';
import type { Role } from '../app';
import { href, navigate } from '../router';
import { SchemaView } from '../schema';
import { Columns, ConfirmButton, Crumbs, ErrorNote, Loading, Notice, StatusBadge, useActions, usePoll, When } from '../ui';
import { ServerForm } from './server-form';
import { ServerListings } from './server-listings';
import { OverrideEditor, overriddenFields, type ToolChangeList, ToolChanges, ToolPolicyControl, type Withheld, WithheldTools } from './tool-review';

function httpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

const READ_ONLY_KINDS = new Set(['MCP_SERVER_KIND_INTERNAL', 'MCP_SERVER_KIND_EXTERNAL']);

export function ServerPage({ serverId, role }: { serverId: string; role: Role }) {
  const [server, setServer] = useState<Server | null>(null);
  const [tools, setTools] = useState<Tool[] | null>(null);
  const [withheld, setWithheld] = useState<Withheld[]>([]);
  const [changes, setChanges] = useState<ToolChangeList | null>(null);
  const [runs, setRuns] = useState<DiscoveryRun[] | null>(null);
  const [runsError, setRunsError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [seen, setSeen] = useState<string>('');
  // PATCH and discover answer the server as it now is: shown at once, not at the next poll.
  const { act: run, message, setMessage, error, setError, generation: actions } = useActions<Server>(setServer);
  const [authorizeAt, setAuthorizeAt] = useState<{ url: string; expiresAt?: string } | null>(null);

  // A discovery history and the tool changes are the owner's (or the admin's): a tenant looking at a platform
  // server is not asked them.
  const loadDetails = useCallback(
    async (own: boolean) => {
      const id = { params: { path: { id: serverId } } };
      const [t, r, c] = await Promise.allSettled([
        ok(api.GET('/api/v1/servers/{id}/tools', id)),
        own ? ok(api.GET('/api/v1/servers/{id}/discoveries', { params: { path: { id: serverId }, query: { pageSize: 20 } } })) : Promise.resolve(null),
        own ? ok(api.GET('/api/v1/servers/{id}/tool-changes', id)) : Promise.resolve(null),
      ]);
      if (t.status === 'fulfilled') {
        setTools(t.value.tools);
        setWithheld(t.value.withheld ?? []);
      }
      if (c.status === 'fulfilled') setChanges(c.value);
      if (r.status === 'fulfilled') {
        setRuns(r.value ? r.value.runs : null);
        setRunsError(null);
      } else setRunsError(errorText(r.reason));
    },
    [serverId],
  );

  // The server is read every 2 s; its tools and history again only when its status or last discovery changed.
  usePoll(
    async () => {
      try {
        const before = actions.current;
        const s = await ok(api.GET('/api/v1/servers/{id}', { params: { path: { id: serverId } } }));
        if (before !== actions.current) return;
        setServer(s);
        setError(null);
        const stamp = `${s.status}|${s.lastDiscoveredAt ?? ''}|${s.toolCount ?? ''}|${s.updatedAt}|${s.toolPolicy}|${s.pendingToolChanges}`;
        if (stamp !== seen) {
          setSeen(stamp);
          await loadDetails(role === 'admin' || s.tenantId !== null);
        }
      } catch (err) {
        setError(errorText(err));
      }
    },
    2000,
    [serverId, seen, role],
  );

  if (!server) {
    return <Loading title="Server" error={error} />;
  }

  const writable = !READ_ONLY_KINDS.has(server.kind) && (role === 'admin' || server.tenantId !== null);
  async function act(what: string, action: () => Promise<unknown>) {
    if (await run(what, action, (a) => Boolean(a && typeof a === 'object' && 'id' in a))) setSeen('');
  }

  const id = { params: { path: { id: serverId } } };
  return (
    <article aria-labelledby="server-title">
      <Crumbs to={href('servers')} label="Servers" />
      <div className="title-row">
        <h1 id="server-title">{server.name}</h1>
        <StatusBadge status={server.status} />
      </div>
      <div aria-live="polite" className="status-line">
        {server.status === 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING' && <span>Discovery in progress…</span>}
        {server.pendingToolChanges > 0 && (
          <p className="pending-count">
            <strong>
              {server.pendingToolChanges === 1 ? '1 tool change waits' : `${server.pendingToolChanges} tool changes wait`} for a decision
            </strong>{' '}
            {writable && (
              <button type="button" className="link-button" onClick={() => document.getElementById('changes-title')?.focus()}>
                Review
              </button>
            )}
          </p>
        )}
        {server.statusReason && (
          <p className={server.status === 'MCP_SERVER_CONNECTION_STATUS_ERROR' ? 'error reason' : 'muted'}>
            <strong>Reason:</strong> {server.statusReason}
          </p>
        )}
      </div>
      <ErrorNote error={error} />
      {message && <Notice>{message}</Notice>}
      {writable && (
        <div className="actions" role="group" aria-label="Actions">
          <button type="button" onClick={() => act('Discovery queued.', () => ok(api.POST('/api/v1/servers/{id}/discover', id)))}>
            Discover now
          </button>
          <button
            type="button"
            onClick={() => act(server.enabled ? 'Disabled.' : 'Enabled.', () => ok(api.PATCH('/api/v1/servers/{id}', { ...id, body: { enabled: !server.enabled } })))}
          >
            {server.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
            {editing ? 'Close the editor' : 'Edit'}
          </button>
          {(server.authorization?.status === 'required' || server.authorization?.status === 'expired') && (
            <button
              type="button"
              onClick={() =>
                act('The authorization server\'s page is ready: open it, sign in and consent; this page follows.', async () => {
                  const start = await ok(api.POST('/api/v1/servers/{id}/authorize', id));
                  setAuthorizeAt(httpUrl(start.authorizationUrl) ? { url: start.authorizationUrl, expiresAt: start.expiresAt } : null);
                  if (!httpUrl(start.authorizationUrl)) throw new Error('The authorization server gave an address that is not http(s): not opened.');
                })
              }
            >
              Authorize
            </button>
          )}
          {(server.authorization?.status === 'authorized' || server.authorization?.status === 'expired') && (
            <ConfirmButton
              label="Forget authorization"
              confirm="Forget the tokens held for this server (and revoke them where the authorization server allows)?"
              onConfirm={() => act('Authorization forgotten.', () => ok(api.DELETE('/api/v1/servers/{id}/authorization', id)))}
            />
          )}
          {server.hasCredentials && (
            <ConfirmButton
              label="Remove credentials"
              confirm="Remove the stored credentials?"
              onConfirm={() => act('Credentials removed.', () => ok(api.PATCH('/api/v1/servers/{id}', { ...id, body: { credentials: null } })))}
            />
          )}
          <ConfirmButton
            label="Delete"
            danger
            confirm={`Delete ${server.name} and its tools?`}
            onConfirm={() =>
              act('Deleted.', async () => {
                await ok(api.DELETE('/api/v1/servers/{id}', id));
                navigate(href('servers'));
              })
            }
          />
        </div>
      )}
      {authorizeAt && (
        <p className="notice">
          {/* The one link to another host: the authorization server's page the registry built, http(s) only. */}
          <a href={authorizeAt.url} target="_blank" rel="noopener noreferrer">
            Open the authorization server's page
          </a>{' '}
          {authorizeAt.expiresAt && (
            <span className="muted small">
              (good until <When at={authorizeAt.expiresAt} />, once)
            </span>
          )}
        </p>
      )}
      {editing && (
        <section aria-labelledby="edit-title" className="panel">
          <h2 id="edit-title">Edit</h2>
          <ServerForm
            role={role}
            server={server}
            submitLabel="Save"
            onSubmit={async (body) => {
              const { kind: _kind, tenantId: _tenant, ...update } = body;
              actions.current++;
              const saved = await ok(api.PATCH('/api/v1/servers/{id}', { ...id, body: update }));
              actions.current++;
              setServer(saved);
              setEditing(false);
              setMessage('Saved. A discovery runs with the new settings.');
              setSeen('');
            }}
          />
        </section>
      )}
      <Identity
        server={server}
        policy={<ToolPolicyControl key={server.toolPolicy} server={server} writable={writable} onSaved={(saved) => { actions.current++; setServer(saved); setMessage(`Tool policy: ${saved.toolPolicy}.`); setSeen(''); }} />}
      />
      <section aria-labelledby="tools-title">
        <h2 id="tools-title">Tools ({tools?.length ?? server.toolCount ?? 0})</h2>
        {tools === null ? <p className="muted">Loading…</p> : tools.length === 0 ? <p className="muted">No tools discovered.</p> : null}
        <ul className="tools">
          {tools?.map((t) => <ToolCard key={t.name} serverId={server.id} tool={t} writable={writable} onChanged={(what) => { setMessage(what); setSeen(''); }} />)}
        </ul>
        <WithheldTools serverId={server.id} withheld={withheld} writable={writable} onChanged={(what) => { setMessage(what); setSeen(''); }} />
      </section>
      {writable && changes && (server.toolPolicy !== 'open' || changes.changes.length > 0) && (
        <ToolChanges serverId={server.id} list={changes} onDecided={() => setSeen('')} />
      )}
      {/* Read again (when opened) after each discovery: the lists are what the last one found. */}
      <ServerListings key={server.lastDiscoveredAt ?? 'never'} server={server} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">Discovery history</h2>
        <ErrorNote error={runsError} />
        {role === 'tenant' && server.tenantId === null && <p className="muted">The platform keeps the discovery history of its own servers.</p>}
        {runs && runs.length === 0 && <p className="muted">No discovery has run yet.</p>}
        {runs && runs.length > 0 && <History runs={runs} />}
      </section>
    </article>
  );
}

function Identity({ server, policy }: { server: Server; policy: ReactNode }) {
  const labels = Object.entries((server.metadata ?? {}) as Record<string, string>);
  const { 'catalog.name': catalogName, 'catalog.version': catalogVersion } = (server.metadata ?? {}) as Record<string, string | undefined>;
  return (
    <section aria-labelledby="identity-title" className="panel">
      <h2 id="identity-title">Identity</h2>
      <dl className="facts">
        <dt>Kind</dt>
        <dd>{shortName(server.kind)}</dd>
        <dt>Owner</dt>
        <dd>{server.tenantId ? `tenant ${server.tenantId}` : 'the platform'}</dd>
        <dt>Name it gives itself</dt>
        <dd>{server.serverName || '—'}</dd>
        <dt>Title</dt>
        <dd>{server.serverTitle || '—'}</dd>
        <dt>Version</dt>
        <dd>{server.version || '—'}</dd>
        <dt>Protocol revision</dt>
        <dd>{server.protocolVersion || '—'}</dd>
        <dt>Transport</dt>
        <dd>{server.transport}</dd>
        {server.url && (
          <>
            <dt>URL</dt>
            <dd className="mono break">{server.url}</dd>
          </>
        )}
        {server.command && (
          <>
            <dt>Command</dt>
            <dd className="mono break">{[server.command, ...(server.args ?? [])].join(' ')}</dd>
          </>
        )}
        {server.authorization && server.authorization.status !== 'none' && (
          <>
            <dt>OAuth</dt>
            <dd>
              <span className={`badge oauth-${server.authorization.status}`}>{server.authorization.status}</span>
              {server.authorization.issuer && <span className="mono break"> {server.authorization.issuer}</span>}
              {server.authorization.scopes?.length ? <div>{server.authorization.scopes.map((sc) => <span key={sc} className="chip">{sc}</span>)}</div> : null}
              {server.authorization.expiresAt && (
                <div className="muted small">
                  token expires <When at={server.authorization.expiresAt} />
                </div>
              )}
            </dd>
          </>
        )}
        <dt>Credentials</dt>
        <dd>{server.hasCredentials ? 'set (write-only: never shown)' : 'none'}</dd>
        <dt>Enabled</dt>
        <dd>{server.enabled ? 'yes' : 'no'}</dd>
        <dt>Tool policy</dt>
        <dd>{policy}</dd>
        <dt>Last discovery</dt>
        <dd>
          <When at={server.lastDiscoveredAt} />
        </dd>
        <dt>Next discovery</dt>
        <dd>
          <When at={server.nextDiscoveryAt} />
        </dd>
        <dt>Capabilities</dt>
        <dd>{server.capabilities?.length ? server.capabilities.map((c) => <span key={c} className="chip">{c}</span>) : '—'}</dd>
        {typeof catalogName === 'string' && typeof catalogVersion === 'string' && (
          <>
            <dt>From the catalog</dt>
            <dd>
              <a href={href('catalog', catalogName, catalogVersion)}>{`${catalogName} ${catalogVersion}`}</a>
            </dd>
          </>
        )}
        <dt>Labels</dt>
        <dd>{labels.length ? labels.map(([k, v]) => <span key={k} className="chip">{`${k}=${v}`}</span>) : '—'}</dd>
      </dl>
      {server.instructions && (
        <>
          <h3>Instructions</h3>
          <pre className="prewrap text">{server.instructions}</pre>
        </>
      )}
    </section>
  );
}

function ToolCard({ serverId, tool, writable, onChanged }: { serverId: string; tool: Tool; writable: boolean; onChanged: (what: string) => void }) {
  const [editing, setEditing] = useState(false);
  const annotations = Object.entries((tool.annotations ?? {}) as Record<string, unknown>);
  const overridden = overriddenFields(tool);
  return (
    <li className="tool" data-tool={tool.name}>
      <details>
        <summary>
          <span className="mono">{tool.name}</span>
          {tool.title && <span className="muted"> — {tool.title}</span>}
          {overridden.length > 0 && <span className="badge overridden">{`overridden: ${overridden.join(', ')}`}</span>}
        </summary>
        {tool.description && <p className="prewrap description">{tool.description}</p>}
        {annotations.length > 0 && (
          <p>
            {annotations.map(([k, v]) => (
              <span key={k} className="chip">{`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`}</span>
            ))}
          </p>
        )}
        <h4>Input</h4>
        <SchemaView schema={tool.inputSchema} label={`${tool.name} input schema`} />
        {tool.outputSchema && (
          <>
            <h4>Output</h4>
            <SchemaView schema={tool.outputSchema} label={`${tool.name} output schema`} />
          </>
        )}
        <div className="actions">
          <a className="button" href={href('servers', serverId, 'tools', tool.name)}>
            Try {tool.name}
          </a>
          {writable && (
            <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
              {editing ? 'Close the override' : 'Override'}
            </button>
          )}
        </div>
        {editing && (
          <OverrideEditor
            serverId={serverId}
            tool={tool}
            onSaved={(what) => {
              setEditing(false);
              onChanged(what);
            }}
          />
        )}
      </details>
    </li>
  );
}

function History({ runs }: { runs: DiscoveryRun[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Discovery runs, newest first</caption>
        <Columns names={['Started', 'Outcome', 'Trigger', 'Tools', 'Changes', 'Took']} num={['Tools', 'Took']} />
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td>
                <When at={r.startedAt} />
              </td>
              <td>
                <span className={`badge outcome-${r.outcome.toLowerCase()}`}>{r.outcome}</span>
                {r.error && <div className="error small">{r.error}</div>}
              </td>
              <td>{r.trigger}</td>
              <td className="num">{r.toolCount ?? ''}</td>
              <td className="changes">
                <Changes sign="+" label="added" names={r.added} />
                <Changes sign="−" label="removed" names={r.removed} />
                <Changes sign="~" label="changed" names={r.changed} />
                {r.dropped?.map((d) => (
                  <div key={d.index} className="error small">{`left out #${d.index}${d.name ? ` ${d.name}` : ''}: ${d.reason}`}</div>
                ))}
                {!r.added?.length && !r.removed?.length && !r.changed?.length && !r.dropped?.length && <span className="muted">no change</span>}
              </td>
              <td className="num">{r.durationMs != null ? `${r.durationMs} ms` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Changes({ sign, label, names }: { sign: string; label: string; names?: string[] }) {
  if (!names?.length) return null;
  return (
    <div className={`change-${label}`}>
      <span aria-label={label}>{sign}</span> {names.join(', ')}
    </div>
  );
}
