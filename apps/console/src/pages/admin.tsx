import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { api, type ApiKey, type AuditEvent, errorText, ok, type Tenant } from '../api';
import { href } from '../router';
import { Columns, ConfirmButton, Crumbs, ErrorNote, Notice, ShownOnce, usePages, When } from '../ui';

/**
 * A form that creates something by its name (a tenant, an API key): the name is sent trimmed and cleared once
 * created; why it failed goes to `setError`.
 */
function CreateByName({
  form,
  field,
  placeholder,
  button,
  create,
  setError,
}: {
  form: string;
  field: string;
  placeholder?: string;
  button: string;
  create: (name: string) => Promise<void>;
  setError: (error: string | null) => void;
}) {
  const [name, setName] = useState('');
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      await create(name.trim());
      setName('');
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <form className="filters" onSubmit={submit} aria-label={form}>
      <label className="grow">
        {field}
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} placeholder={placeholder} />
      </label>
      <button type="submit">{button}</button>
    </form>
  );
}

export function TenantsPage() {
  const [error, setError] = useState<string | null>(null);
  const { items, error: listError, pager, reload } = usePages<Tenant>(
    async (pageToken) => {
      const page = await ok(api.GET('/api/v1/tenants', { params: { query: { pageSize: 50, pageToken } } }));
      return { items: page.tenants, next: page.nextPageToken };
    },
    [],
  );
  return (
    <section aria-labelledby="tenants-title">
      <h1 id="tenants-title">Tenants</h1>
      <CreateByName
        form="New tenant"
        field="New tenant's name"
        button="Create tenant"
        create={async (name) => {
          await ok(api.POST('/api/v1/tenants', { body: { name } }));
          reload();
        }}
        setError={setError}
      />
      <ErrorNote error={error ?? listError} />
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Tenants</caption>
          <Columns names={['Name', 'Id', 'Created']} />
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
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = { params: { path: { tenantId } } };
  const load = useCallback(() => {
    ok(api.GET('/api/v1/tenants/{tenantId}/api-keys', { params: { path: { tenantId } } }))
      .then((list) => setKeys(list.apiKeys))
      .catch((err) => setError(errorText(err)));
  }, [tenantId]);
  useEffect(load, [load]);

  return (
    <section aria-labelledby="tenant-title">
      <Crumbs to={href('admin', 'tenants')} label="Tenants" />
      <h1 id="tenant-title">
        API keys of tenant <span className="mono">{tenantId}</span>
      </h1>
      <CreateByName
        form="New API key"
        field="New key's name"
        placeholder="ci, agent-prod…"
        button="Create key"
        create={async (name) => {
          const key = await ok(api.POST('/api/v1/tenants/{tenantId}/api-keys', { ...path, body: { name } }));
          setCreated({ name: key.name ?? 'new key', key: key.key });
          load();
        }}
        setError={setError}
      />
      <ErrorNote error={error} />
      {created && (
        <ShownOnce id="new-key" label="New API key" value={created.key} onHide={() => setCreated(null)}>
          <strong>The key {created.name}</strong>: copy it now, it is shown only once.
        </ShownOnce>
      )}
      <div className="table-wrap">
        <table>
          <caption className="sr-only">API keys</caption>
          <Columns names={['Name', 'Starts with', 'Created', 'Last used', 'State']} />
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
          <Columns names={['When', 'Who', 'Action', 'Resource', 'Outcome', 'Detail']} />
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
