import { type FormEvent, useState } from 'react';
import { api, errorText, ok, type SearchResult } from '../api';
import { href } from '../router';
import { ErrorNote } from '../ui';

export function SearchPage({ initial }: { initial: string }) {
  const [query, setQuery] = useState(initial);
  const [limit, setLimit] = useState(10);
  const [results, setResults] = useState<SearchResult[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function search(e: FormEvent) {
    e.preventDefault();
    if (!query.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await ok(api.POST('/api/v1/llm/mcp-search-tools', { body: { query: query.trim(), limit } }));
      setResults(answer.results);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">Search tools</h1>
      <p className="muted">Describe a task in plain words, as an agent would: the tools it may use, best first.</p>
      <form className="filters" role="search" onSubmit={search}>
        <label className="grow">
          Task
          <input type="search" value={query} maxLength={1000} onChange={(e) => setQuery(e.target.value)} placeholder="add two numbers, read a file, open an issue…" />
        </label>
        <label>
          Results
          <select value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
            {[5, 10, 20, 50].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Searching…' : 'Search'}
        </button>
      </form>
      <ErrorNote error={error} />
      {results && results.length === 0 && <p className="empty">No tool matches.</p>}
      {results && results.length > 0 && (
        <ol className="results">
          {results.map((r) => (
            <li key={`${r.serverId}/${r.tool.name}`} className="result-item">
              <div className="title-row">
                <span>
                  <span className="mono strong">{r.tool.name}</span>
                  {r.tool.title && <span className="muted"> — {r.tool.title}</span>}
                </span>
                <span className="score" title="relevance score">
                  {r.score.toFixed(3)}
                </span>
              </div>
              <div className="small">
                on <a href={href('servers', r.serverId)}>{r.serverName}</a>
              </div>
              {r.tool.description && <p className="prewrap description clamp">{r.tool.description}</p>}
              <a className="button" href={href('servers', r.serverId, 'tools', r.tool.name)}>
                Try {r.tool.name}
              </a>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
