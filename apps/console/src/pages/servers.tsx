import { useEffect, useRef, useState } from 'react';
import { api, errorText, KINDS, type Kind, ok, type Server, shortName, type Status, STATUSES } from '../api';
import { href } from '../router';
import { Columns, ErrorNote, StatusBadge, usePoll, When } from '../ui';

const PAGE_SIZE = 50;
/** How often the page on screen is read again: statuses change by themselves (discovery runs in the background). */
const REFRESH_MS = 2000;

interface Filters {
  kind: Kind | '';
  status: Status | '';
  q: string;
}

/** A filter on one of the wire names in `options` (each shown by its short name), or on none of them. */
function WireNameFilter<V extends string>(props: { label: string; anyLabel: string; options: readonly V[]; value: V | ''; onChange: (value: V | '') => void }) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.onChange(e.target.value as V | '')}>
        <option value="">{props.anyLabel}</option>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {shortName(o)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function ServersPage() {
  const [filters, setFilters] = useState<Filters>({ kind: '', status: '', q: '' });
  const [text, setText] = useState('');
  // tokens[i] is the page token of page i (undefined for the first): "previous" pops, "next" pushes.
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [servers, setServers] = useState<Server[] | null>(null);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const token = tokens[tokens.length - 1];

  // Typing filters after a short pause, so each key press is not a request.
  useEffect(() => {
    const t = setTimeout(() => {
      setFilters((f) => (f.q === text.trim() ? f : { ...f, q: text.trim() }));
    }, 250);
    return () => clearTimeout(t);
  }, [text]);
  useEffect(() => setTokens([undefined]), [filters]);

  usePoll(
    async () => {
      const mine = ++generation.current;
      try {
        const page = await ok(
          api.GET('/api/v1/servers', {
            params: {
              query: {
                pageSize: PAGE_SIZE,
                pageToken: token,
                kind: filters.kind || undefined,
                status: filters.status || undefined,
                q: filters.q || undefined,
              },
            },
          }),
        );
        if (mine !== generation.current) return; // a newer page was asked for meanwhile
        setServers(page.servers);
        setNext(page.nextPageToken ?? undefined);
        setError(null);
      } catch (err) {
        if (mine === generation.current) setError(errorText(err));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    REFRESH_MS,
    [token, filters],
  );

  const page = tokens.length;
  /** A new kind or status to filter on: the list shows it is being read again. */
  const filterBy = (change: Partial<Filters>) => {
    setLoading(true);
    setFilters({ ...filters, ...change });
  };
  return (
    <section aria-labelledby="servers-title">
      <div className="title-row">
        <h1 id="servers-title">Servers</h1>
        <a className="button" href={href('register')}>
          Register a server
        </a>
      </div>
      <form className="filters" role="search" aria-label="Filter servers" onSubmit={(e) => e.preventDefault()}>
        <WireNameFilter label="Kind" anyLabel="Any kind" options={KINDS} value={filters.kind} onChange={(kind) => filterBy({ kind })} />
        <WireNameFilter label="Status" anyLabel="Any status" options={STATUSES} value={filters.status} onChange={(status) => filterBy({ status })} />
        <label className="grow">
          Name contains
          <input type="search" value={text} maxLength={200} onChange={(e) => setText(e.target.value)} placeholder="filesystem, github…" />
        </label>
      </form>
      <ErrorNote error={error} />
      <div className="table-wrap">
        <table className="servers" aria-busy={loading}>
          <caption className="sr-only">Servers, page {page}; statuses refresh every {REFRESH_MS / 1000} seconds</caption>
          <Columns names={['Name', 'Status', 'Kind', 'Transport', 'Tools', 'Last discovery', 'Reason']} num={['Tools']} />
          <tbody>
            {servers?.map((s) => (
              <tr key={s.id} data-server-id={s.id}>
                <th scope="row">
                  <a href={href('servers', s.id)}>{s.name}</a>
                  {s.serverTitle || s.serverName ? <div className="muted small">{s.serverTitle || s.serverName}</div> : null}
                  {!s.enabled && <span className="badge">disabled</span>}
                </th>
                <td>
                  <StatusBadge status={s.status} />
                </td>
                <td>{shortName(s.kind)}</td>
                <td>{s.transport}</td>
                <td className="num">{s.toolCount ?? 0}</td>
                <td>
                  <When at={s.lastDiscoveredAt} />
                </td>
                <td className="reason">{s.status === 'MCP_SERVER_CONNECTION_STATUS_ERROR' ? s.statusReason : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {servers && servers.length === 0 && <p className="empty">No server matches.</p>}
      </div>
      <nav className="pager" aria-label="Pages">
        <button type="button" disabled={page === 1} onClick={() => { setLoading(true); setTokens(tokens.slice(0, -1)); }}>
          Previous page
        </button>
        <span aria-live="polite">Page {page}</span>
        <button type="button" disabled={!next} onClick={() => { setLoading(true); setTokens([...tokens, next]); }}>
          Next page
        </button>
      </nav>
    </section>
  );
}
