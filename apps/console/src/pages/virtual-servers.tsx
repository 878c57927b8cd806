import { type FormEvent, useEffect, useState } from 'react';
import { api, errorText, ok, type Server, type Tool } from '../api';
import type { components } from '../generated/api';
import { href, navigate } from '../router';
import { Columns, ConfirmButton, CopyField, Crumbs, ErrorNote, Loading, Notice, usePages, When } from '../ui';
import { described, Field, type FieldErrors, fieldErrorsOf } from './server-form';

type Schemas = components['schemas'];
type VirtualServer = Schemas['VirtualServerDto'];
type VirtualTool = Schemas['VirtualToolDto'];
type ToolRef = Schemas['VirtualToolRefDto'];

interface Members {
  servers: string[];
  tools: ToolRef[];
}

/** The endpoint as an MCP client is given it: this registry's origin and the virtual server's path (ours, not a server's). */
const endpointUrl = (v: VirtualServer) => `${window.location.origin}${v.endpoint}`;

function virtualFieldOf(path: string): string | null {
  const f = path.split('.')[0];
  return ['name', 'description', 'servers', 'tools'].includes(f) ? f : null;
}

/**
 * Chooses members: servers found by name (each added whole), or single tools of a server. Names of servers already
 * chosen are read back from the API, so what is shown is what the key sees.
 */
function MemberPicker({ value, onChange, errors }: { value: Members; onChange: (m: Members) => void; errors: FieldErrors }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Server[]>([]);
  const [names, setNames] = useState<Record<string, string>>({});
  const [open, setOpen] = useState<{ server: Server; tools: Tool[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const t = setTimeout(() => {
      ok(api.GET('/api/v1/servers', { params: { query: { pageSize: 10, q: q.trim() || undefined } } }))
        .then((page) => {
          setFound(page.servers);
          setNames((n) => ({ ...n, ...Object.fromEntries(page.servers.map((s) => [s.id, s.name])) }));
        })
        .catch((err) => setError(errorText(err)));
    }, 250);
    return () => clearTimeout(t);
  }, [q]);
  useEffect(() => {
    const unknown = [...value.servers, ...value.tools.map((t) => t.serverId)].filter((id) => !(id in names));
    for (const id of new Set(unknown))
      ok(api.GET('/api/v1/servers/{id}', { params: { path: { id } } }))
        .then((s) => setNames((n) => ({ ...n, [id]: s.name })))
        .catch(() => setNames((n) => ({ ...n, [id]: '(not visible)' })));
  }, [value, names]);
  const nameOf = (id: string) => names[id] ?? id;
  const hasTool = (serverId: string, toolName: string) => value.tools.some((t) => t.serverId === serverId && t.toolName === toolName);
  return (
    <fieldset className="members">
      <legend>Members</legend>
      <ErrorNote error={error} />
      <div className="chosen" aria-live="polite">
        {value.servers.length === 0 && value.tools.length === 0 && <p className="muted small">Nothing chosen yet.</p>}
        {value.servers.map((id) => (
          <span key={id} className="chip" data-member-server={id}>
            {`${nameOf(id)} (every tool)`}{' '}
            <button type="button" className="link-button" aria-label={`Remove ${nameOf(id)}`} onClick={() => onChange({ ...value, servers: value.servers.filter((x) => x !== id) })}>
              ×
            </button>
          </span>
        ))}
        {value.tools.map((t) => (
          <span key={`${t.serverId}/${t.toolName}`} className="chip" data-member-tool={t.toolName}>
            {`${nameOf(t.serverId)} / ${t.toolName}`}{' '}
            <button
              type="button"
              className="link-button"
              aria-label={`Remove ${t.toolName}`}
              onClick={() => onChange({ ...value, tools: value.tools.filter((x) => !(x.serverId === t.serverId && x.toolName === t.toolName)) })}
            >
              ×
            </button>
          </span>
        ))}
      </div>
      {[...(errors.servers ?? []), ...(errors.tools ?? [])].map((m, i) => (
        <p key={i} className="field-error" role="alert">
          {m}
        </p>
      ))}
      <div className="field">
        <label htmlFor="vs-find">Find a server</label>
        <input id="vs-find" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="name…" maxLength={200} />
      </div>
      <ul className="plain">
        {found.map((s) => (
          <li key={s.id} data-found={s.name}>
            <span className="strong">{s.name}</span> <span className="muted small">{s.toolCount ?? 0} tools</span>{' '}
            <button type="button" className="link-button" disabled={value.servers.includes(s.id)} onClick={() => onChange({ ...value, servers: [...value.servers, s.id] })}>
              {`Add ${s.name} whole`}
            </button>{' '}
            <button
              type="button"
              className="link-button"
              aria-expanded={open?.server.id === s.id}
              onClick={() =>
                open?.server.id === s.id
                  ? setOpen(null)
                  : ok(api.GET('/api/v1/servers/{id}/tools', { params: { path: { id: s.id } } }))
                      .then((t) => setOpen({ server: s, tools: t.tools }))
                      .catch((err) => setError(errorText(err)))
              }
            >
              {`Choose tools of ${s.name}`}
            </button>
            {open?.server.id === s.id && (
              <ul className="plain tool-choice">
                {open.tools.length === 0 && <li className="muted small">No tools.</li>}
                {open.tools.map((t) => (
                  <li key={t.name} className="field checkbox">
                    <input
                      id={`vs-tool-${s.id}-${t.name}`}
                      type="checkbox"
                      checked={hasTool(s.id, t.name)}
                      onChange={(e) =>
                        onChange({
                          ...value,
                          tools: e.target.checked ? [...value.tools, { serverId: s.id, toolName: t.name }] : value.tools.filter((x) => !(x.serverId === s.id && x.toolName === t.name)),
                        })
                      }
                    />
                    <label htmlFor={`vs-tool-${s.id}-${t.name}`}>
                      <span className="mono">{t.name}</span> {t.title && <span className="muted small">{t.title}</span>}
                    </label>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

function VirtualForm({ initial, submitLabel, onSubmit }: { initial?: VirtualServer; submitLabel: string; onSubmit: (body: { name: string; description?: string | null } & Members) => Promise<void> }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [members, setMembers] = useState<Members>({ servers: initial?.servers ?? [], tools: initial?.tools ?? [] });
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setProblem(null);
    try {
      await onSubmit({ name: name.trim(), description: description.trim() || (initial ? null : undefined), ...members });
    } catch (err) {
      const { fields, rest } = fieldErrorsOf(err, virtualFieldOf);
      setErrors(fields);
      setProblem(rest);
    }
  }
  return (
    <form className="server-form" onSubmit={submit} noValidate aria-label={submitLabel}>
      <ErrorNote error={problem} />
      <Field id="vs-name" label="Name" errors={errors.name}>
        <input {...described('vs-name', errors.name)} value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="vs-description" label="Description (optional)" errors={errors.description}>
        <input {...described('vs-description', errors.description)} value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <MemberPicker value={members} onChange={setMembers} errors={errors} />
      <button type="submit">{submitLabel}</button>
    </form>
  );
}

/** Virtual servers: chosen servers and single tools served as one MCP server at /mcp/v/{id}. */
export function VirtualServersPage() {
  const [making, setMaking] = useState(false);
  const { items, error, pager } = usePages<VirtualServer>(
    async (pageToken) => {
      const page = await ok(api.GET('/api/v1/virtual-servers', { params: { query: { pageSize: 50, pageToken } } }));
      return { items: page.virtualServers, next: page.nextPageToken };
    },
    [],
  );
  return (
    <section aria-labelledby="virtual-title">
      <div className="title-row">
        <h1 id="virtual-title">Virtual servers</h1>
        <button type="button" aria-expanded={making} onClick={() => setMaking(!making)}>
          {making ? 'Close' : 'Make a virtual server'}
        </button>
      </div>
      <p className="muted">One MCP endpoint for a chosen set: whole servers and single tools, reached with the same API keys as /mcp.</p>
      {making && (
        <section className="panel" aria-labelledby="new-virtual">
          <h2 id="new-virtual">New virtual server</h2>
          <VirtualForm
            submitLabel="Make it"
            onSubmit={async (body) => {
              const v = await ok(api.POST('/api/v1/virtual-servers', { body: { ...body, description: body.description ?? undefined } }));
              navigate(href('virtual', v.id));
            }}
          />
        </section>
      )}
      <ErrorNote error={error} />
      <div className="table-wrap">
        <table className="cards virtual">
          <caption className="sr-only">Virtual servers</caption>
          <Columns names={['Name', 'Members', 'Owner', 'Endpoint', 'Changed']} />
          <tbody>
            {items?.map((v) => (
              <tr key={v.id} data-virtual={v.name}>
                <th scope="row">
                  <a href={href('virtual', v.id)}>{v.name}</a>
                  {v.description && <div className="muted small">{v.description}</div>}
                </th>
                <td>{`${v.servers.length} servers, ${v.tools.length} tools`}</td>
                <td>{v.tenantId ? `tenant ${v.tenantId}` : 'platform'}</td>
                <td className="mono small break">{v.endpoint}</td>
                <td><When at={v.updatedAt} /></td>
              </tr>
            ))}
          </tbody>
        </table>
        {items?.length === 0 && <p className="empty">No virtual server yet.</p>}
      </div>
      {pager}
    </section>
  );
}

export function VirtualServerPage({ virtualId }: { virtualId: string }) {
  const [v, setV] = useState<VirtualServer | null>(null);
  const [tools, setTools] = useState<VirtualTool[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const path = { params: { path: { id: virtualId } } };
  const load = () =>
    Promise.all([ok(api.GET('/api/v1/virtual-servers/{id}', path)), ok(api.GET('/api/v1/virtual-servers/{id}/tools', path))])
      .then(([vs, t]) => {
        setV(vs);
        setTools(t.tools);
      })
      .catch((err) => setError(errorText(err)));
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => void load(), [virtualId]);
  if (!v) {
    return <Loading title="Virtual server" error={error} />;
  }
  return (
    <article aria-labelledby="vs-title">
      <Crumbs to={href('virtual')} label="Virtual servers" />
      <h1 id="vs-title">{v.name}</h1>
      {v.description && <p className="prewrap">{v.description}</p>}
      <ErrorNote error={error} />
      {message && <Notice>{message}</Notice>}
      <CopyField id="vs-endpoint" label="MCP endpoint" value={endpointUrl(v)} copyLabel="Copy the endpoint" />
      <div className="actions" role="group" aria-label="Actions">
        <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          {editing ? 'Close the editor' : 'Edit'}
        </button>
        <ConfirmButton
          label="Delete"
          danger
          confirm={`Delete ${v.name}? Its member servers stay.`}
          onConfirm={() =>
            ok(api.DELETE('/api/v1/virtual-servers/{id}', path))
              .then(() => navigate(href('virtual')))
              .catch((err) => setError(errorText(err)))
          }
        />
      </div>
      {editing && (
        <section className="panel" aria-labelledby="vs-edit">
          <h2 id="vs-edit">Edit</h2>
          <VirtualForm
            initial={v}
            submitLabel="Save"
            onSubmit={async (body) => {
              setV(await ok(api.PATCH('/api/v1/virtual-servers/{id}', { ...path, body })));
              setEditing(false);
              setMessage('Saved.');
              await load();
            }}
          />
        </section>
      )}
      <section aria-labelledby="vs-tools">
        <h2 id="vs-tools">Tools it lists now ({tools?.length ?? 0})</h2>
        <p className="muted small">What /mcp/v/{v.id} lists to you: the tools of its live member servers, each under the name clients call.</p>
        <div className="table-wrap">
          <table className="cards">
            <caption className="sr-only">Tools of the virtual server</caption>
            <Columns names={['Name clients call', 'Server', 'Tool']} />
            <tbody>
              {tools?.map((t) => (
                <tr key={t.name} data-virtual-tool={t.name}>
                  <th scope="row" className="mono">
                    {t.name}
                  </th>
                  <td>
                    <a href={href('servers', t.serverId)} className="mono small">
                      {t.serverId}
                    </a>
                  </td>
                  <td>
                    <a href={href('servers', t.serverId, 'tools', t.toolName)} className="mono">
                      {t.toolName}
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="panel" aria-labelledby="vs-facts">
        <h2 id="vs-facts">Virtual server</h2>
        <dl className="facts">
          <dt>Owner</dt>
          <dd>{v.tenantId ? `tenant ${v.tenantId}` : 'the platform (every tenant sees it)'}</dd>
          <dt>Whole servers</dt>
          <dd>{v.servers.length ? v.servers.map((id) => <a key={id} className="chip mono" href={href('servers', id)}>{id}</a>) : '—'}</dd>
          <dt>Single tools</dt>
          <dd>{v.tools.length ? v.tools.map((t) => <span key={`${t.serverId}/${t.toolName}`} className="chip mono">{`${t.serverId} / ${t.toolName}`}</span>) : '—'}</dd>
          <dt>Made, changed</dt>
          <dd>
            <When at={v.createdAt} />, <When at={v.updatedAt} />
          </dd>
        </dl>
      </section>
    </article>
  );
}
