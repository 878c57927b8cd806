import { type FormEvent, useRef, useState } from 'react';
import { api, type CatalogSource, errorText, ok } from '../api';
import { Columns, ConfirmButton, ErrorNote, every, Notice, useActions, usePoll, When } from '../ui';
import { described, Field, type FieldErrors, fieldErrorsOf } from './server-form';

const REFRESH_MS = 2000;

/** The admin's catalog sources: upstream Registry APIs synced into the platform's catalog, each with how its last sync ended. */
export function CatalogSourcesPage() {
  const [sources, setSources] = useState<CatalogSource[] | null>(null);
  const { act: run, message, setMessage, error, setError } = useActions();
  const [baseUrl, setBaseUrl] = useState('');
  const [period, setPeriod] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  // A sync asked for here is shown as under way until the source's lastSyncAt moves past what it was.
  const [asked, setAsked] = useState<Record<string, string | null>>({});
  const generation = useRef(0);

  const load = async () => {
    const mine = ++generation.current;
    const list = await ok(api.GET('/api/v1/catalog/sources'));
    if (mine !== generation.current) return;
    setSources(list.sources);
    setAsked((a) => Object.fromEntries(Object.entries(a).filter(([id, at]) => list.sources.find((s) => s.id === id)?.lastSyncAt === at)));
  };
  usePoll(() => load().catch((err) => setError(errorText(err))), REFRESH_MS, []);

  async function add(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setError(null);
    setMessage(null);
    try {
      const created = await ok(api.POST('/api/v1/catalog/sources', { body: { baseUrl: baseUrl.trim(), ...(period.trim() ? { intervalSeconds: Number(period) } : {}) } }));
      setAsked((a) => ({ ...a, [created.id]: null }));
      setBaseUrl('');
      setPeriod('');
      setMessage(`Added ${created.baseUrl}: its first sync runs now.`);
      await load();
    } catch (err) {
      const { fields, rest } = fieldErrorsOf(err, (p) => (p === 'baseUrl' || p === 'intervalSeconds' ? p : null));
      setErrors(fields);
      setError(rest);
    }
  }

  /** Runs an action on a source; once it succeeded, the list is read again at once. */
  async function act(what: string, action: () => Promise<unknown>) {
    if (await run(what, action)) await load().catch((err) => setError(errorText(err)));
  }

  return (
    <section aria-labelledby="sources-title">
      <h1 id="sources-title">Catalog sources</h1>
      <p className="muted">Upstream Registry APIs whose servers the worker copies into the platform's catalog: at once, then every interval, then only what changed.</p>
      <form className="server-form" onSubmit={add} noValidate aria-label="New catalog source">
        <Field id="src-url" label="Registry base URL" hint="Its /v0.1/servers is read; the address must pass the outbound address policy" errors={errors.baseUrl}>
          <input {...described('src-url', errors.baseUrl, true)} type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://registry.modelcontextprotocol.io" spellCheck={false} />
        </Field>
        <Field id="src-interval" label="Sync every (seconds)" hint="300 to 604800; empty: 3600" errors={errors.intervalSeconds}>
          <input {...described('src-interval', errors.intervalSeconds, true)} inputMode="numeric" value={period} onChange={(e) => setPeriod(e.target.value)} />
        </Field>
        <button type="submit">Add source</button>
      </form>
      <ErrorNote error={error} />
      {message && <Notice>{message}</Notice>}
      <div className="table-wrap">
        <table className="cards sources" aria-live="polite">
          <caption className="sr-only">Catalog sources; read again every {REFRESH_MS / 1000} seconds</caption>
          <Columns names={['Base URL', 'Every', 'Last sync', 'Outcome', 'Last success', 'Actions']} />
          <tbody>
            {sources?.map((s) => (
              <tr key={s.id} data-source={s.id}>
                <th scope="row" className="mono break">
                  {s.baseUrl}
                </th>
                <td>{every(s.intervalSeconds)}</td>
                <td>
                  <When at={s.lastSyncAt} />
                </td>
                <td className="outcome">
                  {s.id in asked ? (
                    <span className="badge outcome-running">syncing</span>
                  ) : s.lastOutcome ? (
                    <span className={`badge outcome-${s.lastOutcome}`}>{s.lastOutcome}</span>
                  ) : (
                    <span className="muted">not yet</span>
                  )}
                  {s.lastReason && <div className={`small prewrap ${s.lastOutcome === 'failed' ? 'error' : 'muted'}`}>{s.lastReason}</div>}
                </td>
                <td>
                  <When at={s.lastSuccessAt} />
                </td>
                <td>
                  <div className="actions">
                    <button
                      type="button"
                      disabled={s.id in asked}
                      onClick={() =>
                        act(`Sync of ${s.baseUrl} queued.`, async () => {
                          setAsked((a) => ({ ...a, [s.id]: s.lastSyncAt }));
                          await ok(api.POST('/api/v1/catalog/sources/{id}/sync', { params: { path: { id: s.id } } })).catch((err: unknown) => {
                            setAsked(({ [s.id]: _dropped, ...rest }) => rest);
                            throw err;
                          });
                        })
                      }
                    >
                      Sync now
                    </button>
                    <ConfirmButton
                      label="Delete"
                      danger
                      confirm={`Stop syncing ${s.baseUrl}? Its entries stay in the catalog.`}
                      onConfirm={() => act('Source deleted.', () => ok(api.DELETE('/api/v1/catalog/sources/{id}', { params: { path: { id: s.id } } })))}
                    />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {sources?.length === 0 && <p className="empty">No source: the catalog holds only what was imported.</p>}
      </div>
    </section>
  );
}
