import { type FormEvent, useState } from 'react';
import { api, ApiError, errorText, type ImportResult, ok } from '../api';
import { href } from '../router';
import { Columns, Crumbs, ErrorNote } from '../ui';

const PLACEHOLDER = `{
  "mcpServers": {
    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] },
    "github": { "url": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer …" } }
  }
}`;

/** Import into the caller's catalog: a server.json, a list of them, a Registry API page, or a client config. All or nothing. */
export function CatalogImportPage() {
  const [text, setText] = useState('');
  const [result, setResult] = useState<ImportResult | null>(null);
  const [refused, setRefused] = useState<{ message: string; errors: { field: string; message: string }[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    setRefused(null);
    setError(null);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      setError(`This is not JSON: ${(err as Error).message}. Nothing was sent.`);
      return;
    }
    setBusy(true);
    try {
      setResult(await ok(api.POST('/api/v1/catalog/import', { body: body as Record<string, never> })));
    } catch (err) {
      if (err instanceof ApiError && err.fieldErrors.length) setRefused({ message: `${err.message} (${err.status})`, errors: err.fieldErrors });
      else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="import-title">
      <Crumbs to={href('catalog')} label="Catalog" />
      <h1 id="import-title">Import into the catalog</h1>
      <p className="muted">
        Paste one server.json (schema 2025-12-11), a list of them, a Registry API page, or a client config (<span className="mono">mcpServers</span> of Claude
        Desktop or Cursor, <span className="mono">servers</span> of VS Code). All or nothing: one refused item refuses the import. Values of a client config that
        look secret are not kept; they are asked for when a server is made from the entry.
      </p>
      <form onSubmit={submit} aria-label="Import">
        <div className="field wide">
          <label htmlFor="import-json">What to import (JSON)</label>
          <textarea
            id="import-json"
            className="mono"
            rows={14}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder={PLACEHOLDER}
            spellCheck={false}
            aria-describedby={refused ? 'import-refused' : undefined}
            aria-invalid={refused || error ? true : undefined}
          />
        </div>
        <button type="submit" disabled={busy || !text.trim()}>
          {busy ? 'Importing…' : 'Import'}
        </button>
      </form>
      <ErrorNote error={error} />
      {refused && (
        <div className="panel refused" id="import-refused" role="alert">
          <p className="error">{refused.message}</p>
          <ul>
            {refused.errors.map((e, i) => (
              <li key={i}>
                <span className="mono">{e.field}</span>: {e.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {result && (
        <section aria-labelledby="import-result" className="panel" role="status">
          <h2 id="import-result">
            Read as {result.format}: {result.added} added, {result.updated} updated, {result.unchanged} unchanged
          </h2>
          <div className="table-wrap">
            <table className="cards">
              <caption className="sr-only">Imported items</caption>
              <Columns names={['Item', 'Entry', 'Outcome', 'Not kept (looks secret)']} />
              <tbody>
                {result.items.map((it) => (
                  <tr key={it.at}>
                    <td className="mono small">{it.at}</td>
                    <th scope="row">
                      <a href={href('catalog', it.name, it.version)}>{it.name}</a> <span className="mono small">{it.version}</span>
                    </th>
                    <td>{it.outcome}</td>
                    <td className="mono small">{it.withheld.length ? it.withheld.join(', ') : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </section>
  );
}
