import { type FormEvent, useState } from 'react';
import { api, errorText, ok } from '../api';
import type { components } from '../generated/api';
import { href, navigate } from '../router';
import { Columns, ConfirmButton, Crumbs, ErrorNote, Loading, Notice, ShownOnce, useActions, usePages, usePoll, When } from '../ui';
import { described, Field, type FieldErrors, fieldErrorsOf } from './server-form';

type Schemas = components['schemas'];
type Webhook = Schemas['WebhookDto'];
type Delivery = Schemas['WebhookDeliveryDto'];
type EventType = Schemas['CreateWebhookDto']['events'][number];

/** Every event type the API offers, with what it means (a type added to the API fails this record's typecheck). */
const EVENTS: Record<EventType, string> = {
  'server.status_changed': 'a server became CONNECTED, ERROR, DISCONNECTED…',
  'server.tools_changed': 'a discovery found tools added, removed or changed',
  'server.tool_change_pending': 'a new or changed tool definition waits for approval',
  'server.authorization_required': 'a server behind OAuth needs a person to authorize it',
};
const EVENT_TYPES = Object.keys(EVENTS) as EventType[];
const DELIVERY_STATUSES = ['', 'pending', 'delivered', 'failed', 'cancelled'] as const;
const REFRESH_MS = 2000;

function WebhookState({ w }: { w: Webhook }) {
  if (!w.enabled) return <span className="badge status-error">disabled</span>;
  if (w.consecutiveFailures > 0) return <span className="badge status-discovering">{`failing (${w.consecutiveFailures})`}</span>;
  return <span className="badge status-connected">enabled</span>;
}

/** Webhooks: signed deliveries of server events to a URL (a tenant's of its own servers, the admin's of any). */
export function WebhooksPage() {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>(['server.status_changed']);
  const [description, setDescription] = useState('');
  const [servers, setServers] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ id: string; url: string; secret: string } | null>(null);
  const { items, error: listError, pager, reload } = usePages<Webhook>(
    (pageToken) => ok(api.GET('/api/v1/webhooks', { params: { query: { pageSize: 50, pageToken } } })).then((p) => ({ items: p.webhooks, next: p.nextPageToken })),
    [],
  );
  async function create(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setError(null);
    const serverIds = servers.split('\n').map((s) => s.trim()).filter(Boolean);
    try {
      const w = await ok(
        api.POST('/api/v1/webhooks', { body: { url: url.trim(), events, ...(description.trim() ? { description: description.trim() } : {}), ...(serverIds.length ? { serverIds } : {}) } }),
      );
      setCreated({ id: w.id, url: w.url, secret: w.secret });
      setUrl('');
      setDescription('');
      setServers('');
      reload();
    } catch (err) {
      const { fields, rest } = fieldErrorsOf(err, (p) => {
        const f = p.split('.')[0];
        return ['url', 'events', 'description', 'serverIds'].includes(f) ? f : null;
      });
      setErrors(fields);
      setError(rest);
    }
  }
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="muted">
        Server events POSTed to a URL of yours, signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), retried with backoff; a webhook
        that keeps failing is disabled with the reason.
      </p>
      <form className="server-form" onSubmit={create} noValidate aria-label="New webhook">
        <Field id="wh-url" label="Receiver URL" hint="https://… (it must pass the outbound address policy)" errors={errors.url}>
          <input {...described('wh-url', errors.url, true)} type="url" value={url} onChange={(e) => setUrl(e.target.value)} spellCheck={false} />
        </Field>
        <fieldset aria-describedby={errors.events ? 'wh-events-error' : undefined}>
          <legend>Events</legend>
          {EVENT_TYPES.map((t) => (
            <div key={t} className="field checkbox">
              <input
                id={`wh-ev-${t}`}
                type="checkbox"
                checked={events.includes(t)}
                onChange={(e) => setEvents(e.target.checked ? [...events, t] : events.filter((x) => x !== t))}
              />
              <label htmlFor={`wh-ev-${t}`}>
                <span className="mono">{t}</span> <span className="muted small">{EVENTS[t]}</span>
              </label>
            </div>
          ))}
          {errors.events?.map((m, i) => (
            <p key={i} className="field-error" id={i === 0 ? 'wh-events-error' : undefined} role="alert">
              {m}
            </p>
          ))}
        </fieldset>
        <Field id="wh-description" label="Description (optional)" errors={errors.description}>
          <input {...described('wh-description', errors.description)} value={description} maxLength={500} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <Field id="wh-servers" label="Only these servers (optional)" hint="Server ids, one per line; empty: every server whose events you may hear" errors={errors.serverIds}>
          <textarea {...described('wh-servers', errors.serverIds, true)} rows={2} value={servers} onChange={(e) => setServers(e.target.value)} spellCheck={false} />
        </Field>
        <button type="submit">Create webhook</button>
      </form>
      <ErrorNote error={error ?? listError} />
      {created && (
        <ShownOnce id="webhook-secret" label="Signing secret" value={created.secret} onHide={() => setCreated(null)}>
          <strong>The signing secret of {created.url}</strong>: copy it now, it is shown only once. Verify each delivery with it.{' '}
          <a href={href('webhooks', created.id)}>Open the webhook</a>
        </ShownOnce>
      )}
      <div className="table-wrap">
        <table className="cards webhooks">
          <caption className="sr-only">Webhooks</caption>
          <Columns names={['URL', 'Events', 'State', 'Last success', 'Last failure']} />
          <tbody>
            {items?.map((w) => (
              <tr key={w.id} data-webhook={w.id}>
                <th scope="row">
                  <a href={href('webhooks', w.id)} className="mono break">
                    {w.url}
                  </a>
                  {w.description && <div className="muted small">{w.description}</div>}
                </th>
                <td>
                  {w.events.map((e) => (
                    <span key={e} className="chip mono">
                      {e}
                    </span>
                  ))}
                </td>
                <td>
                  <WebhookState w={w} />
                  {w.disabledReason && <div className="small error">{w.disabledReason}</div>}
                </td>
                <td><When at={w.lastSuccessAt} /></td>
                <td><When at={w.lastFailureAt} /></td>
              </tr>
            ))}
          </tbody>
        </table>
        {items?.length === 0 && <p className="empty">No webhook yet.</p>}
      </div>
      {pager}
    </section>
  );
}

/** One webhook: its state, enable/disable, a new secret (shown once), delete, and its deliveries with every attempt. */
export function WebhookPage({ webhookId }: { webhookId: string }) {
  // The webhook and its deliveries are read together, and shown together.
  const [view, setView] = useState<{ hook: Webhook; deliveries: Delivery[] } | null>(null);
  const [status, setStatus] = useState<(typeof DELIVERY_STATUSES)[number]>('');
  const [secret, setSecret] = useState<string | null>(null);
  const { act: run, message, error, setError, generation } = useActions<Webhook>((hook) => setView((v) => (v ? { ...v, hook } : v)));
  const act = (what: string, action: () => Promise<unknown>) => run(what, action, (a) => Boolean(a && typeof a === 'object' && 'url' in a));
  const path = { params: { path: { id: webhookId } } };
  usePoll(
    async () => {
      const before = generation.current;
      try {
        const [hook, page] = await Promise.all([
          ok(api.GET('/api/v1/webhooks/{id}', path)),
          ok(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: webhookId }, query: { pageSize: 50, status: status || undefined } } })),
        ]);
        if (before !== generation.current) return;
        setView({ hook, deliveries: page.deliveries });
        setError(null);
      } catch (err) {
        setError(errorText(err));
      }
    },
    REFRESH_MS,
    [webhookId, status],
  );
  const w = view?.hook;
  const deliveries = view?.deliveries;
  if (!w) {
    return <Loading title="Webhook" error={error} />;
  }
  return (
    <article aria-labelledby="webhook-title">
      <Crumbs to={href('webhooks')} label="Webhooks" />
      <div className="title-row">
        <h1 id="webhook-title" className="mono break">
          {w.url}
        </h1>
        <WebhookState w={w} />
      </div>
      <ErrorNote error={error} />
      {message && <Notice>{message}</Notice>}
      {secret && (
        <ShownOnce id="webhook-secret" label="New signing secret" value={secret} onHide={() => setSecret(null)}>
          <strong>The new signing secret</strong>: copy it now, it is shown only once. Deliveries are signed with it from now on.
        </ShownOnce>
      )}
      <div className="actions" role="group" aria-label="Actions">
        <button type="button" onClick={() => act(w.enabled ? 'Disabled.' : 'Enabled.', () => ok(api.PATCH('/api/v1/webhooks/{id}', { ...path, body: { enabled: !w.enabled } })))}>
          {w.enabled ? 'Disable' : 'Enable'}
        </button>
        <ConfirmButton
          label="New secret"
          confirm="Sign deliveries with a new secret from now on? The old one stops verifying."
          onConfirm={() => act('A new secret signs deliveries from now on.', async () => setSecret((await ok(api.POST('/api/v1/webhooks/{id}/rotate-secret', path))).secret))}
        />
        <ConfirmButton
          label="Delete"
          danger
          confirm="Delete this webhook and its deliveries?"
          onConfirm={() =>
            act('Deleted.', async () => {
              await ok(api.DELETE('/api/v1/webhooks/{id}', path));
              navigate(href('webhooks'));
            })
          }
        />
      </div>
      <section className="panel" aria-labelledby="webhook-facts">
        <h2 id="webhook-facts">Webhook</h2>
        <dl className="facts">
          <dt>Owner</dt>
          <dd>{w.tenantId ? `tenant ${w.tenantId}` : 'the platform admin'}</dd>
          <dt>Events</dt>
          <dd>{w.events.map((e) => <span key={e} className="chip mono">{e}</span>)}</dd>
          <dt>Servers</dt>
          <dd>{w.serverIds.length ? w.serverIds.map((id) => <a key={id} className="chip mono" href={href('servers', id)}>{id}</a>) : 'every server whose events the owner may hear'}</dd>
          <dt>Description</dt>
          <dd>{w.description || '—'}</dd>
          <dt>State</dt>
          <dd>
            {w.enabled ? 'enabled' : `disabled ${w.disabledReason ? `: ${w.disabledReason}` : ''}`}
            {w.consecutiveFailures > 0 && (
              <div className="small error">
                {w.consecutiveFailures} failed attempts in a row, since <When at={w.failingSince} />
              </div>
            )}
          </dd>
          <dt>Last success, last failure</dt>
          <dd>
            <When at={w.lastSuccessAt} />, <When at={w.lastFailureAt} />
          </dd>
          <dt>Signing secret</dt>
          <dd>set (shown once when made; never again)</dd>
        </dl>
      </section>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries</h2>
        <form className="filters" role="search" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
          <label>
            Delivery status
            <select value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s || 'any'}
                </option>
              ))}
            </select>
          </label>
        </form>
        <div className="table-wrap">
          <table className="cards deliveries">
            <caption className="sr-only">Deliveries, newest first; read again every {REFRESH_MS / 1000} seconds</caption>
            <Columns names={['Event', 'Server', 'Status', 'Attempts', 'Made']} />
            <tbody>
              {deliveries?.map((d) => (
                <tr key={d.id} data-delivery={d.id}>
                  <th scope="row" className="mono">
                    {d.type}
                    <div className="muted small">{d.eventId}</div>
                  </th>
                  <td>
                    <a className="mono small" href={href('servers', d.serverId)}>
                      {d.serverId}
                    </a>
                  </td>
                  <td>
                    <span className={`badge delivery-${d.status}`}>{d.status}</span>
                    {d.lastError && <div className="small error">{d.lastError}</div>}
                    {d.nextAttemptAt && (
                      <div className="muted small">
                        next try <When at={d.nextAttemptAt} />
                      </div>
                    )}
                  </td>
                  <td>
                    <details>
                      <summary>{d.attemptCount}</summary>
                      <ol className="attempts">
                        {d.attempts.map((a) => (
                          <li key={a.attempt}>
                            <When at={a.at} /> · {a.statusCode ?? 'no answer'}
                            {a.durationMs != null && ` · ${a.durationMs} ms`}
                            {a.error && <div className="small error">{a.error}</div>}
                          </li>
                        ))}
                      </ol>
                    </details>
                  </td>
                  <td>
                    <When at={d.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {deliveries?.length === 0 && <p className="empty">No delivery{status ? ` ${status}` : ''} yet.</p>}
        </div>
      </section>
    </article>
  );
}
