import { type FormEvent, type RefObject, useEffect, useRef, useState } from 'react';
import { api, type CatalogEntry, type CreateServer, errorText, ok } from '../api';
import type { Role } from '../app';
import { type EntryInputs, type InputField, inputsToSend, packageInputs, packageLabel, remoteInputs, type ServerJson, type ServerJsonPackage, type ServerJsonTransport } from '../catalog-inputs';
import { href, navigate } from '../router';
import { Columns, Crumbs, ErrorNote, Json, StatusBadge, usePages, When } from '../ui';
import { described, Field, type FieldErrors, fieldErrorsOf } from './server-form';

const STATUS_FILTERS = [
  { value: '', label: 'Active and deprecated' },
  { value: 'active', label: 'Active' },
  { value: 'deprecated', label: 'Deprecated' },
  { value: 'deleted', label: 'Deleted' },
] as const;
type StatusFilter = (typeof STATUS_FILTERS)[number]['value'];

function EntryStatus({ entry }: { entry: Pick<CatalogEntry, 'status' | 'isLatest'> }) {
  return (
    <>
      <span className={`badge catalog-${entry.status}`}>{entry.status}</span> {entry.isLatest && <span className="badge">latest</span>}
    </>
  );
}

function origin(entry: CatalogEntry): string {
  const owner = entry.tenantId ? `tenant ${entry.tenantId}` : 'platform';
  return entry.sourceId ? `${owner}, synced` : `${owner}, imported`;
}

/** The catalog: what the caller's key may turn into servers (the platform's entries and, for a tenant, its own). */
export function CatalogPage({ role }: { role: Role }) {
  const [text, setText] = useState('');
  const [filters, setFilters] = useState<{ q: string; status: StatusFilter }>({ q: '', status: '' });
  useEffect(() => {
    const t = setTimeout(() => setFilters((f) => (f.q === text.trim() ? f : { ...f, q: text.trim() })), 250);
    return () => clearTimeout(t);
  }, [text]);
  const { items, error, pager } = usePages<CatalogEntry>(
    async (pageToken) => {
      const page = await ok(api.GET('/api/v1/catalog', { params: { query: { pageSize: 50, pageToken, q: filters.q || undefined, status: filters.status || undefined } } }));
      return { items: page.entries, next: page.nextPageToken };
    },
    [filters],
  );
  return (
    <section aria-labelledby="catalog-title">
      <div className="title-row">
        <h1 id="catalog-title">Catalog</h1>
        <a className="button" href={href('catalog', 'import')}>
          Import
        </a>
        {role === 'admin' && (
          <a className="button secondary" href={href('admin', 'sources')}>
            Catalog sources
          </a>
        )}
      </div>
      <p className="muted">
        Published server descriptions (server.json) {role === 'admin' ? 'of the platform and of every tenant' : "of the platform and your tenant's own"}: open one to see
        what it needs, and make a server from it.
      </p>
      <form className="filters" role="search" aria-label="Catalog filters" onSubmit={(e) => e.preventDefault()}>
        <label className="grow">
          Search the catalog
          <input type="search" value={text} maxLength={200} onChange={(e) => setText(e.target.value)} placeholder="weather, github, time…" />
        </label>
        <label>
          Status
          <select value={filters.status} onChange={(e) => setFilters({ ...filters, status: e.target.value as StatusFilter })}>
            {STATUS_FILTERS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorNote error={error} />
      <div className="table-wrap">
        <table className="cards catalog">
          <caption className="sr-only">Catalog entries, oldest first</caption>
          <Columns names={['Name', 'Version', 'Status', 'Offers', 'From', 'Description']} />
          <tbody>
            {items?.map((e) => (
              <tr key={e.id} data-entry={`${e.name}@${e.version}`}>
                <th scope="row">
                  <a href={href('catalog', e.name, e.version)}>{e.title || e.name}</a>
                  {e.title && <div className="muted small mono break">{e.name}</div>}
                </th>
                <td className="mono">{e.version}</td>
                <td>
                  <EntryStatus entry={e} />
                </td>
                <td className="small">{offers(e.server as ServerJson)}</td>
                <td className="small">{origin(e)}</td>
                <td className="clamp prewrap small">{e.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {items?.length === 0 && <p className="empty">No entry matches. Import server.json files or a client config, or (the admin) add a catalog source.</p>}
      </div>
      {pager}
    </section>
  );
}

function offers(server: ServerJson): string {
  const remotes = Array.isArray(server.remotes) ? server.remotes.length : 0;
  const packages = Array.isArray(server.packages) ? server.packages.length : 0;
  return [remotes ? `${remotes} remote${remotes > 1 ? 's' : ''}` : '', packages ? `${packages} package${packages > 1 ? 's' : ''}` : ''].filter(Boolean).join(', ') || 'nothing to run';
}

interface MadeServer {
  serverId: string;
  name: string;
  status: string;
  statusReason?: string | null;
}

/** Every version of a name the caller sees (the catalog answers by words: the exact name is kept here). */
async function versionsOf(name: string): Promise<CatalogEntry[]> {
  const out: CatalogEntry[] = [];
  let pageToken: string | undefined;
  for (let i = 0; i < 10; i++) {
    const page = await ok(api.GET('/api/v1/catalog', { params: { query: { pageSize: 100, pageToken, q: name } } }));
    out.push(...page.entries.filter((e) => e.name === name));
    if (!page.nextPageToken) break;
    pageToken = page.nextPageToken;
  }
  return out.reverse();
}

/** The servers made from one version, as the Registry API's discovery `_meta` reports them. */
async function madeFrom(name: string, version: string): Promise<MadeServer[]> {
  const answer = (await ok(api.GET('/v0.1/servers/{serverName}/versions/{version}', { params: { path: { serverName: name, version } } }))) as unknown as {
    _meta?: Record<string, { servers?: MadeServer[] } | undefined>;
  };
  const servers = answer?._meta?.['dev.mcp-registry/discovery']?.servers;
  return Array.isArray(servers) ? servers : [];
}

type Choice = { remote: number } | { package: number };

/** One entry: its server.json read for a person (remotes, packages, what each needs), its versions, and the servers made from it. */
export function CatalogEntryPage({ name, version, role }: { name: string; version: string; role: Role }) {
  const [versions, setVersions] = useState<CatalogEntry[] | null>(null);
  const [made, setMade] = useState<MadeServer[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [choice, setChoice] = useState<Choice | null>(null);
  const formHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    let live = true;
    versionsOf(name)
      .then((v) => live && setVersions(v))
      .catch((err) => live && setError(errorText(err)));
    madeFrom(name, version)
      .then((m) => live && setMade(m))
      .catch(() => live && setMade([]));
    return () => {
      live = false;
    };
  }, [name, version]);
  useEffect(() => {
    if (choice) formHeading.current?.focus();
  }, [choice]);

  const entry = versions?.find((e) => e.version === version) ?? (version === 'latest' ? versions?.find((e) => e.isLatest) : undefined);
  if (!entry) {
    return (
      <section aria-labelledby="entry-title">
        <Crumbs to={href('catalog')} label="Catalog" />
        <h1 id="entry-title" className="break">
          {name}
        </h1>
        {error ? <ErrorNote error={error} /> : versions ? <p className="error">This catalog has no version {version} of {name}.</p> : <p aria-busy="true">Loading…</p>}
      </section>
    );
  }
  const server = entry.server as ServerJson;
  const remotes = Array.isArray(server.remotes) ? server.remotes : [];
  const packages = Array.isArray(server.packages) ? server.packages : [];
  return (
    <article aria-labelledby="entry-title">
      <Crumbs to={href('catalog')} label="Catalog" />
      <div className="title-row">
        <h1 id="entry-title">{entry.title || entry.name}</h1>
        <span>
          <EntryStatus entry={entry} />
        </span>
      </div>
      {entry.statusMessage && <p className="muted prewrap">{entry.statusMessage}</p>}
      <p className="prewrap description">{entry.description}</p>
      <section aria-labelledby="entry-facts" className="panel">
        <h2 id="entry-facts">Entry</h2>
        <dl className="facts">
          <dt>Name</dt>
          <dd className="mono">{entry.name}</dd>
          <dt>Version</dt>
          <dd className="mono">{entry.version}</dd>
          <dt>Owner</dt>
          <dd>{entry.tenantId ? `tenant ${entry.tenantId}` : 'the platform'}</dd>
          <dt>Came from</dt>
          <dd>
            {entry.sourceId ? (
              <>
                a catalog source{' '}
                {role === 'admin' ? <a href={href('admin', 'sources')} className="mono">{entry.sourceId}</a> : <span className="mono">{entry.sourceId}</span>}
              </>
            ) : (
              'an import'
            )}
          </dd>
          <dt>Published here, changed</dt>
          <dd>
            <When at={entry.publishedAt} />, <When at={entry.updatedAt} />
          </dd>
          {/* Addresses an entry gives are shown as text: nothing a publisher wrote becomes a link. */}
          {typeof server.websiteUrl === 'string' && (
            <>
              <dt>Website</dt>
              <dd className="mono break">{server.websiteUrl}</dd>
            </>
          )}
          {typeof server.repository?.url === 'string' && (
            <>
              <dt>Repository</dt>
              <dd className="mono break">{server.repository.url}</dd>
            </>
          )}
          <dt>Versions</dt>
          <dd>
            {versions!.map((v) =>
              v.version === entry.version ? (
                <span key={v.id} className="chip strong" aria-current="page">
                  {v.version}
                </span>
              ) : (
                <a key={v.id} className="chip" href={href('catalog', v.name, v.version)}>
                  {v.version}
                </a>
              ),
            )}
          </dd>
        </dl>
      </section>
      <section aria-labelledby="made-title">
        <h2 id="made-title">Servers made from this version</h2>
        {made === null ? (
          <p className="muted">Loading…</p>
        ) : made.length === 0 ? (
          <p className="muted">None that you can see.</p>
        ) : (
          <ul className="plain">
            {made.map((m) => (
              <li key={m.serverId}>
                <a href={href('servers', m.serverId)}>{m.name}</a> <StatusBadge status={m.status} />
                {m.statusReason && <span className="muted small"> {m.statusReason}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="remotes-title">
        <h2 id="remotes-title">Remotes ({remotes.length})</h2>
        {remotes.length === 0 && <p className="muted">No remote: this server runs from a package.</p>}
        {remotes.map((r, i) => (
          <div key={i} className="panel" data-remote={i}>
            <h3>
              {r.type} <span className="mono break">{r.url}</span>
            </h3>
            <InputTable inputs={remoteInputs(r)} />
            <button type="button" onClick={() => setChoice({ remote: i })} aria-expanded={choice !== null && 'remote' in choice && choice.remote === i}>
              Make a server from this remote
            </button>
            {choice && 'remote' in choice && choice.remote === i && <FromCatalogPanel entry={entry} choice={choice} target={r} role={role} heading={formHeading} />}
          </div>
        ))}
      </section>
      <section aria-labelledby="packages-title">
        <h2 id="packages-title">Packages ({packages.length})</h2>
        {packages.length === 0 && <p className="muted">No package.</p>}
        {packages.map((p, i) => (
          <div key={i} className="panel" data-package={i}>
            <h3 className="break">{packageLabel(p)}</h3>
            {p.runtimeHint && <p className="muted small">runs with {p.runtimeHint}</p>}
            <InputTable inputs={packageInputs(p)} />
            {role === 'admin' ? (
              <button type="button" onClick={() => setChoice({ package: i })} aria-expanded={choice !== null && 'package' in choice && choice.package === i}>
                Make a server from this package
              </button>
            ) : (
              <p className="muted small">A package runs as a program on the platform's hosts: only the admin makes servers from packages. Use a remote.</p>
            )}
            {choice && 'package' in choice && choice.package === i && <FromCatalogPanel entry={entry} choice={choice} target={p} role={role} heading={formHeading} />}
          </div>
        ))}
      </section>
      <details>
        <summary>server.json as published</summary>
        <Json value={entry.server} label="server.json" />
      </details>
    </article>
  );
}

function FromCatalogPanel(props: { entry: CatalogEntry; choice: Choice; target: ServerJsonTransport | ServerJsonPackage; role: Role; heading: RefObject<HTMLHeadingElement | null> }) {
  const { choice, heading } = props;
  return (
    <section aria-labelledby="from-catalog-title" className="from-catalog">
      <h3 id="from-catalog-title" ref={heading} tabIndex={-1}>
        {'remote' in choice ? `A server from remote ${choice.remote + 1}` : `A server from package ${choice.package + 1}`}
      </h3>
      <FromCatalogForm key={JSON.stringify(choice)} {...props} />
    </section>
  );
}

function InputTable({ inputs }: { inputs: EntryInputs }) {
  return (
    <>
      {inputs.fields.length === 0 ? (
        <p className="muted small">Needs no value.</p>
      ) : (
        <div className="table-wrap">
          <table className="cards inputs">
            <caption className="sr-only">What it needs</caption>
            <Columns names={['Input', 'Goes in', 'Needed', 'Description', 'Default or choices']} />
            <tbody>
              {inputs.fields.map((f) => (
                <tr key={f.key}>
                  <th scope="row" className="mono">
                    {f.key}
                  </th>
                  <td>{f.where}</td>
                  <td>
                    {f.required ? <span className="badge required-badge">required</span> : <span className="muted">optional</span>} {f.secret && <span className="badge secret-badge">secret</span>}
                  </td>
                  <td className="prewrap small">{f.description ?? ''}</td>
                  <td className="mono small break">{f.choices ? f.choices.join(' | ') : f.secret ? '' : (f.fallback ?? '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {inputs.notes.map((n) => (
        <p key={n} className="muted small">
          {n}
        </p>
      ))}
    </>
  );
}

/** `fromCatalog.inputs.port` → the input `port`; `name` and `tenantId` → their fields; the rest is shown above the form. */
function fromCatalogField(path: string): string | null {
  if (path.startsWith('fromCatalog.inputs.')) return 'in:' + path.slice('fromCatalog.inputs.'.length);
  if (path === 'name' || path === 'tenantId' || path === 'kind') return path === 'kind' ? 'tenantId' : path;
  return null;
}

function FromCatalogForm({ entry, choice, target, role }: { entry: CatalogEntry; choice: Choice; target: ServerJsonTransport | ServerJsonPackage; role: Role; heading?: unknown }) {
  const inputs = 'remote' in choice ? remoteInputs(target as ServerJsonTransport) : packageInputs(target as ServerJsonPackage);
  const [values, setValues] = useState<Record<string, string>>({});
  const [name, setName] = useState('');
  const [tenantId, setTenantId] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const defaultName = entry.name.slice(entry.name.indexOf('/') + 1);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setProblem(null);
    const body: CreateServer = {
      ...(name.trim() ? { name: name.trim() } : {}),
      fromCatalog: { name: entry.name, version: entry.version, ...choice, inputs: inputsToSend(inputs.fields, values) },
    } as CreateServer;
    if (role === 'admin' && tenantId.trim()) Object.assign(body, { tenantId: tenantId.trim(), kind: 'MCP_SERVER_KIND_CUSTOM' });
    try {
      const server = await ok(api.POST('/api/v1/servers', { body }));
      navigate(href('servers', server.id));
    } catch (err) {
      const { fields, rest } = fieldErrorsOf(err, fromCatalogField);
      setErrors(fields);
      setProblem(rest);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="server-form" onSubmit={submit} noValidate aria-label="Make a server from the catalog">
      <ErrorNote error={problem} />
      {Object.keys(errors).length > 0 && (
        <p className="error" role="alert">
          The registry refused some values: see the messages beside them.
        </p>
      )}
      <Field id="fc-name" label="Server name" hint={`Empty: ${defaultName}`} errors={errors.name}>
        <input {...described('fc-name', errors.name, true)} value={name} onChange={(x) => setName(x.target.value)} placeholder={defaultName} />
      </Field>
      {role === 'admin' && 'remote' in choice && (
        <Field id="fc-tenant" label="For tenant (optional)" hint="Empty: a BUILT_IN server of the platform. A tenant id: a CUSTOM server of that tenant." errors={errors.tenantId}>
          <input {...described('fc-tenant', errors.tenantId, true)} value={tenantId} onChange={(x) => setTenantId(x.target.value)} />
        </Field>
      )}
      {inputs.fields.length > 0 && (
        <fieldset>
          <legend>What it needs</legend>
          {inputs.fields.map((f) => (
            <InputFieldControl key={f.key} field={f} value={values[f.key] ?? ''} errors={errors['in:' + f.key]} onChange={(v) => {
                setValues((x) => ({ ...x, [f.key]: v }));
                setErrors(({ ['in:' + f.key]: _fixed, ...rest }) => rest);
              }}
            />
          ))}
        </fieldset>
      )}
      {inputs.notes.map((n) => (
        <p key={n} className="muted small">
          {n}
        </p>
      ))}
      {Object.entries(errors)
        .filter(([k]) => k.startsWith('in:') && !inputs.fields.some((f) => 'in:' + f.key === k))
        .map(([k, m]) => (
          <p key={k} className="error">{`${k.slice(3)}: ${m.join('; ')}`}</p>
        ))}
      <button type="submit" disabled={busy}>
        {busy ? 'Making it…' : 'Make the server'}
      </button>
    </form>
  );
}

function InputFieldControl({ field: f, value, errors, onChange }: { field: InputField; value: string; errors?: string[]; onChange: (v: string) => void }) {
  const id = `fc-in-${f.key.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const hint = [f.where, f.description, f.fallback !== undefined && !f.secret ? `default: ${f.fallback}` : '', f.secret ? 'secret: stored encrypted, never shown again' : '', f.repeated ? 'one value per line' : '']
    .filter(Boolean)
    .join(' · ');
  const label = `${f.key}${f.required ? ' (required)' : ''}`;
  const aria = { ...described(id, errors, true), 'aria-required': f.required || undefined };
  return (
    <Field id={id} label={label} hint={hint} errors={errors}>
      {f.choices ? (
        <select {...aria} value={value} onChange={(x) => onChange(x.target.value)}>
          <option value="">{f.fallback !== undefined ? `(default: ${f.fallback})` : '(choose)'}</option>
          {f.choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      ) : f.secret ? (
        <input {...aria} type="password" autoComplete="new-password" value={value} onChange={(x) => onChange(x.target.value)} spellCheck={false} />
      ) : f.repeated ? (
        <textarea {...aria} rows={2} value={value} onChange={(x) => onChange(x.target.value)} spellCheck={false} />
      ) : (
        <input {...aria} value={value} placeholder={f.placeholder ?? f.fallback} onChange={(x) => onChange(x.target.value)} spellCheck={false} />
      )}
    </Field>
  );
}
