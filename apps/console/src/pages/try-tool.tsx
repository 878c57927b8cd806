import { type FormEvent, useEffect, useState } from 'react';
import { api, type CallToolResult, errorText, ok, type Tool } from '../api';
import { href } from '../router';
import { asSchema } from '../schema';
import { SchemaForm } from '../schema-form';
import { ErrorNote, Json } from '../ui';

/** The image types shown inline; anything else a server calls an image is described, not displayed. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function TryToolPage({ serverId, toolName }: { serverId: string; toolName: string }) {
  const [tool, setTool] = useState<Tool | null>(null);
  const [serverName, setServerName] = useState<string>('');
  const [loadError, setLoadError] = useState<string | null>(null);
  const [args, setArgs] = useState<Record<string, unknown>>({});
  const [raw, setRaw] = useState(false);
  const [rawText, setRawText] = useState('{}');
  const [rawError, setRawError] = useState<string | null>(null);
  const [result, setResult] = useState<{ value: CallToolResult; ms: number } | null>(null);
  const [callError, setCallError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const path = { params: { path: { id: serverId } } };
    Promise.all([ok(api.GET('/api/v1/servers/{id}/tools', path)), ok(api.GET('/api/v1/servers/{id}', path))])
      .then(([list, server]) => {
        setServerName(server.name);
        const found = list.tools.find((t) => t.name === toolName);
        if (found) setTool(found);
        else setLoadError(`The server has no tool named ${toolName} (as last discovered).`);
      })
      .catch((err) => setLoadError(errorText(err)));
  }, [serverId, toolName]);

  async function call(e: FormEvent) {
    e.preventDefault();
    let body = args;
    if (raw) {
      try {
        const parsed: unknown = JSON.parse(rawText || '{}');
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the arguments must be a JSON object');
        body = parsed as Record<string, unknown>;
        setRawError(null);
      } catch (err) {
        setRawError(err instanceof Error ? err.message : String(err));
        return;
      }
    }
    setBusy(true);
    setCallError(null);
    setResult(null);
    const started = performance.now();
    try {
      const value = await ok(api.POST('/api/v1/llm/mcp-call-tool', { body: { serverId, toolName, arguments: body } }));
      setResult({ value, ms: Math.round(performance.now() - started) });
    } catch (err) {
      setCallError(`${errorText(err)} after ${Math.round(performance.now() - started)} ms`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <article aria-labelledby="try-title">
      <p className="crumbs">
        <a href={href('servers')}>Servers</a> / <a href={href('servers', serverId)}>{serverName || 'server'}</a> /
      </p>
      <h1 id="try-title">
        Try <span className="mono">{toolName}</span>
      </h1>
      <ErrorNote error={loadError} />
      {tool && (
        <>
          {tool.description && <p className="prewrap description">{tool.description}</p>}
          <form onSubmit={call} className="try-form" aria-label="Arguments">
            <div className="field checkbox">
              <input
                id="raw-json"
                type="checkbox"
                checked={raw}
                onChange={(e) => {
                  setRaw(e.target.checked);
                  if (e.target.checked) setRawText(JSON.stringify(args, null, 2));
                }}
              />
              <label htmlFor="raw-json">Edit the arguments as JSON</label>
            </div>
            {raw ? (
              <div className={`field${rawError ? ' invalid' : ''}`}>
                <label htmlFor="raw-args">Arguments (JSON object)</label>
                <textarea id="raw-args" className="mono" rows={10} value={rawText} onChange={(e) => setRawText(e.target.value)} spellCheck={false} />
                {rawError && <p className="field-error" role="alert">{rawError}</p>}
              </div>
            ) : (
              <SchemaForm schema={asSchema(tool.inputSchema)} value={args} onChange={setArgs} />
            )}
            <button type="submit" disabled={busy}>
              {busy ? 'Calling…' : 'Call the tool'}
            </button>
          </form>
        </>
      )}
      <ErrorNote error={callError} />
      {result && <ResultView result={result.value} ms={result.ms} />}
    </article>
  );
}

/** A CallToolResult as the model reads it: each content block in order, every string shown as text. */
export function ResultView({ result, ms }: { result: CallToolResult; ms: number }) {
  const content = (Array.isArray(result.content) ? result.content : []) as Record<string, unknown>[];
  return (
    <section aria-labelledby="result-title" className={`panel result${result.isError ? ' is-error' : ''}`} data-testid="tool-result">
      <h2 id="result-title">
        Result {result.isError ? <span className="badge status-error">isError</span> : <span className="badge status-connected">ok</span>}{' '}
        <span className="muted small">{ms} ms</span>
      </h2>
      {content.length === 0 && <p className="muted">No content.</p>}
      {content.map((block, i) => (
        <Block key={i} block={block} />
      ))}
      {result.structuredContent && (
        <>
          <h3>Structured content</h3>
          <Json value={result.structuredContent} label="structured content" />
        </>
      )}
      <details>
        <summary>The whole result as JSON</summary>
        <Json value={result} />
      </details>
    </section>
  );
}

function Block({ block }: { block: Record<string, unknown> }) {
  const type = typeof block.type === 'string' ? block.type : 'unknown';
  if (type === 'text') return <pre className="block text prewrap">{String(block.text ?? '')}</pre>;
  if (type === 'image') {
    const mime = typeof block.mimeType === 'string' ? block.mimeType.toLowerCase() : '';
    const data = typeof block.data === 'string' ? block.data : '';
    if (IMAGE_TYPES.has(mime) && data.length > 0 && data.length < 8_000_000 && BASE64.test(data)) {
      return (
        <figure className="block">
          <img src={`data:${mime};base64,${data}`} alt={`Image returned by the tool (${mime})`} />
          <figcaption className="muted small">{mime}</figcaption>
        </figure>
      );
    }
    return <p className="block muted">An image the console does not show ({mime || 'no type'}, {data.length} characters of data).</p>;
  }
  if (type === 'audio') return <p className="block muted">Audio ({String(block.mimeType ?? 'no type')}), not played here.</p>;
  if (type === 'resource') {
    const r = (block.resource ?? {}) as Record<string, unknown>;
    return (
      <div className="block resource">
        <p>
          Embedded resource <span className="mono break">{String(r.uri ?? '')}</span>{' '}
          {typeof r.mimeType === 'string' && <span className="muted">({r.mimeType})</span>}
        </p>
        {typeof r.text === 'string' ? (
          <pre className="prewrap text">{r.text}</pre>
        ) : (
          <p className="muted">Binary content, {typeof r.blob === 'string' ? r.blob.length : 0} characters of base64.</p>
        )}
      </div>
    );
  }
  if (type === 'resource_link') {
    return (
      <p className="block resource">
        Resource link <span className="mono break">{String(block.uri ?? '')}</span> {typeof block.name === 'string' && <span>({block.name})</span>}
      </p>
    );
  }
  return <Json value={block} label={`${type} content`} />;
}
