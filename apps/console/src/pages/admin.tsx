import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api, type ApiKey, type AuditEvent, errorText, ok, type Tenant } from '../api';
import { href } from '../router';
import { ConfirmButton, ErrorNote, Notice, When } from '../ui';

/** Pages through an API list with its page tokens: tokens[i] is page i's token. */
function usePages<T>(load: (token: string | undefined) => Promise<{ items: T[]; next?: string | null }>, deps: unknown[]) {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const token = tokens[tokens.length - 1];
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => setTokens([undefined]), deps);
  useEffect(() => {
    let live = true;
    load(token)
      .then((page) => {
        if (!live) return;
        setItems(page.items);
        setNext(page.next ?? undefined);
        setError(null);
      })
      .catch((err) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [token, tick, ...deps]);
  const pager = (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={tokens.length === 1} onClick={() => setTokens(tokens.slice(0, -1))}>
        Previous page
      </button>
      <span>Page {tokens.length}</span>
      <button type="button" disabled={!next} onClick={() => setTokens([...tokens, next])}>
        Next page
      </button>
    </nav>
  );
  return { items, error, pager, reload: () => setTick((t) => t + 1) };
}

export function TenantsPage() {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { items, error: listError, pager, reload } = usePages<Tenant>(
    async (pageToken) => {
      const page = await ok(api.GET('/api/v1/tenants', { params: { query: { pageSize: 50, pageToken } } }));
      return { items: page.tenants, next: page.nextPageToken };
    },
    [],
  );
  async function create(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      await ok(api.POST('/api/v1/tenants', { body: { name: name.trim() } }));
      setName('');
      reload();
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <section aria-labelledby="tenants-title">
      <h1 id="tenants-title">Tenants</h1>
      <form className="filters" onSubmit={create} aria-label="New tenant">
        <label className="grow">
          New tenant's name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
        </label>
        <button type="submit">Create tenant</button>
      </form>
      <ErrorNote error={error ?? listError} />
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Tenants</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Id</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items?.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  <a href={href('admin', 'tenants', t.id)}>{t.name}</a>
                </th>
                <td className="mono">{t.id}</td>
                <td>
                  <When at={t.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {items?.length === 0 && <p className="empty">No tenant yet.</p>}
      {pager}
    </section>
  );
}

export function TenantPage({ tenantId }: { tenantId: string }) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const path = { params: { path: { tenantId } } };
  const load = useCallback(() => {
    ok(api.GET('/api/v1/tenants/{tenantId}/api-keys', { params: { path: { tenantId } } }))
      .then((list) => setKeys(list.apiKeys))
      .catch((err) => setError(errorText(err)));
  }, [tenantId]);
  useEffect(load, [load]);

  async function create(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setCopied(false);
    try {
      const key = await ok(api.POST('/api/v1/tenants/{tenantId}/api-keys', { ...path, body: { name: name.trim() } }));
      setCreated({ name: key.name ?? 'new key', key: key.key });
      setName('');
      load();
    } catch (err) {
      setError(errorText(err));
    }
  }
  async function copy() {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      (document.getElementById('new-key') as HTMLInputElement | null)?.select();
    }
  }
  return (
    <section aria-labelledby="tenant-title">
      <p className="crumbs">
        <a href={href('admin', 'tenants')}>Tenants</a> /
      </p>
      <h1 id="tenant-title">
        API keys of tenant <span className="mono">{tenantId}</span>
      </h1>
      <form className="filters" onSubmit={create} aria-label="New API key">
        <label className="grow">
          New key's name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} placeholder="ci, agent-prod…" />
        </label>
        <button type="submit">Create key</button>
      </form>
      <ErrorNote error={error} />
      {created && (
        <div className="panel new-key" role="status">
          <p>
            <strong>The key {created.name}</strong>: copy it now, it is shown only once.
          </p>
          <div className="copy-row">
            <label htmlFor="new-key" className="sr-only">
              New API key
            </label>
            <input id="new-key" className="mono" readOnly value={created.key} onFocus={(e) => e.target.select()} />
            <button type="button" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
          <button type="button" onClick={() => setCreated(null)}>
            I have kept it: hide it
          </button>
        </div>
      )}
      <div className="table-wrap">
        <table>
          <caption className="sr-only">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Starts with</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys?.map((k) => (
              <tr key={k.id}>
                <th scope="row">{k.name}</th>
                <td className="mono">{k.prefix}…</td>
                <td>
                  <When at={k.createdAt} />
                </td>
                <td>
                  <When at={k.lastUsedAt} />
                </td>
                <td>
                  {k.revokedAt ? (
                    <span className="badge">
                      revoked <When at={k.revokedAt} />
                    </span>
                  ) : (
                    <ConfirmButton
                      label="Revoke"
                      danger
                      confirm={`Revoke ${k.name}? It stops working at once.`}
                      onConfirm={() =>
                        ok(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id: k.id } } }))
                          .then(load)
                          .catch((err) => setError(errorText(err)))
                      }
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {keys?.length === 0 && <p className="empty">No key yet.</p>}
    </section>
  );
}

export function AuditPage() {
  const [draft, setDraft] = useState({ tenantId: '', action: '', resourceId: '' });
  const [filters, setFilters] = useState(draft);
  const { items, error, pager } = usePages<AuditEvent>(
    async (pageToken) => {
      const page = await ok(
        api.GET('/api/v1/audit', {
          params: {
            query: {
              pageSize: 50,
              pageToken,
              tenantId: filters.tenantId || undefined,
              action: filters.action || undefined,
              resourceId: filters.resourceId || undefined,
            },
          },
        }),
      );
      return { items: page.events, next: page.nextPageToken };
    },
    [filters],
  );
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        className="filters"
        role="search"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ tenantId: draft.tenantId.trim(), action: draft.action.trim(), resourceId: draft.resourceId.trim() });
        }}
      >
        <label>
          Action
          <input value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} placeholder="server.create" />
        </label>
        <label>
          Tenant id
          <input value={draft.tenantId} onChange={(e) => setDraft({ ...draft, tenantId: e.target.value })} />
        </label>
        <label>
          Resource id
          <input value={draft.resourceId} onChange={(e) => setDraft({ ...draft, resourceId: e.target.value })} />
        </label>
        <button type="submit">Filter</button>
      </form>
      {filters.action && <Notice>{`Showing ${filters.action} events`}</Notice>}
      <ErrorNote error={error} />
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Audit events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Action</th>
              <th scope="col">Resource</th>
              <th scope="col">Outcome</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {items?.map((ev) => (
              <tr key={ev.id}>
                <td>
                  <When at={ev.at} />
                </td>
                <td>
                  {ev.actorType}
                  {ev.tenantId && <div className="muted small mono">{ev.tenantId}</div>}
                </td>
                <td className="mono">{ev.action}</td>
                <td>
                  {ev.resourceType}
                  {ev.resourceId && <div className="muted small mono">{ev.resourceId}</div>}
                </td>
                <td>{ev.outcome}</td>
                <td className="mono small break">{ev.detail ? JSON.stringify(ev.detail) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {items?.length === 0 && <p className="empty">No event matches.</p>}
      {pager}
    </section>
  );
}
