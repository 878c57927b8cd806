import { type FormEvent, useState } from 'react';
import { api, ApiError, errorText, ok, type Server, type Tool } from '../api';
import { described, Field } from './server-form';
import { ConfirmButton, ErrorNote, Json, Notice, When } from '../ui';
import type { components } from '../generated/api';

type Schemas = components['schemas'];
export type ToolChange = Schemas['ToolChangeDto'];
export type ToolChangeList = Schemas['ToolChangeListDto'];
export type Withheld = Schemas['WithheldToolDto'];
export type ToolPolicy = Server['toolPolicy'];

/** Where an overridden definition says which fields the owner put over the server's. */
export const OVERRIDE_META = 'dev.mcp-registry/override'; // OVERRIDE_META_KEY of libs/domain

export const POLICIES: { value: ToolPolicy; label: string; meaning: string }[] = [
  { value: 'open', label: 'open', meaning: 'every definition is served as discovered (changes show in the history)' },
  { value: 'pinned', label: 'pinned', meaning: "the first discovery's tools are served; a later new or changed definition waits for approval" },
  { value: 'approval', label: 'approval', meaning: 'every definition, first sight included, waits for approval' },
];

/** The fields an override put over a served tool, from its `_meta` mark (empty: not overridden). */
export function overriddenFields(tool: Tool): string[] {
  const mark = (tool._meta as Record<string, unknown> | undefined)?.[OVERRIDE_META] as { fields?: unknown } | undefined;
  return Array.isArray(mark?.fields) ? mark.fields.filter((f): f is string => typeof f === 'string') : [];
}

/** The server's tool policy, changed in place (the owner's or the admin's). */
export function ToolPolicyControl({ server, writable, onSaved }: { server: Server; writable: boolean; onSaved: (s: Server) => void }) {
  const [draft, setDraft] = useState<ToolPolicy>(server.toolPolicy);
  const [error, setError] = useState<string | null>(null);
  const current = POLICIES.find((p) => p.value === server.toolPolicy);
  async function save(e?: FormEvent) {
    e?.preventDefault();
    setError(null);
    try {
      onSaved(await ok(api.PATCH('/api/v1/servers/{id}', { params: { path: { id: server.id } }, body: { toolPolicy: draft } })));
    } catch (err) {
      setError(errorText(err));
    }
  }
  if (!writable) return <span>{current ? `${current.label}: ${current.meaning}` : server.toolPolicy}</span>;
  const toOpen = draft === 'open' && server.toolPolicy !== 'open' && server.pendingToolChanges > 0;
  return (
    <form className="inline-form" onSubmit={save} aria-label="Change the tool policy">
      <strong className="policy-now">{server.toolPolicy}</strong>{' '}
      <label htmlFor="tool-policy" className="sr-only">
        Tool policy
      </label>
      <select id="tool-policy" value={draft} onChange={(e) => setDraft(e.target.value as ToolPolicy)} aria-describedby="tool-policy-hint">
        {POLICIES.map((p) => (
          <option key={p.value} value={p.value}>
            {p.label}
          </option>
        ))}
      </select>
      {draft !== server.toolPolicy &&
        (toOpen ? (
          <ConfirmButton label="Save the policy" confirm={`Open approves the ${server.pendingToolChanges} definitions waiting. Save?`} onConfirm={() => void save()} />
        ) : (
          <button type="submit">Save the policy</button>
        ))}
      <p className="hint" id="tool-policy-hint">
        {POLICIES.find((p) => p.value === draft)?.meaning}
      </p>
      <ErrorNote error={error} />
    </form>
  );
}

/** Line by line, what a text became: kept lines plain, removed ones marked −, added ones +. Untrusted: text only. */
export function lineDiff(before: string, after: string): { sign: ' ' | '−' | '+'; line: string }[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Long texts are shown whole, before then after: a line-by-line table of 400 × 400 is the most worth computing.
  if (a.length * b.length > 160_000) return [...a.map((line) => ({ sign: '−' as const, line })), ...b.map((line) => ({ sign: '+' as const, line }))];
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: { sign: ' ' | '−' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ sign: ' ', line: a[i] });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) out.push({ sign: '−', line: a[i++] });
    else out.push({ sign: '+', line: b[j++] });
  }
  return out;
}

const asText = (v: unknown): string | undefined => (v === undefined ? undefined : typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** One field's change, as text: a line diff when both sides exist, else what was added or what is gone. */
function FieldDiff({ field, before, after }: { field: string; before?: unknown; after?: unknown }) {
  const b = asText(before);
  const a = asText(after);
  const lines =
    b === undefined ? (a ?? '').split('\n').map((line) => ({ sign: '+' as const, line })) : a === undefined ? b.split('\n').map((line) => ({ sign: '−' as const, line })) : lineDiff(b, a);
  return (
    <div className="field-diff" data-field={field}>
      <h5 className="mono">
        {field} <span className="muted small">{b === undefined ? '(new)' : a === undefined ? '(gone)' : '(changed)'}</span>
      </h5>
      <pre className="diff" tabIndex={0} aria-label={`${field}: what changed`}>
        {lines.map((l, i) => (
          <span key={i} className={l.sign === '+' ? 'diff-add' : l.sign === '−' ? 'diff-del' : undefined}>
            {`${l.sign} ${l.line}\n`}
          </span>
        ))}
      </pre>
    </div>
  );
}

/**
 * The definitions this server's policy holds: each with its diff against what was approved, approve and reject
 * by the hash read here. A 409 means the server changed the definition again since: the list is read again.
 */
export function ToolChanges({ serverId, list, onDecided }: { serverId: string; list: ToolChangeList; onDecided: () => void }) {
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function decide(change: ToolChange, how: 'approve' | 'reject') {
    setMessage(null);
    setError(null);
    const params = { params: { path: { id: serverId, toolName: change.toolName } }, body: { hash: change.hash } };
    try {
      const answer = await ok(how === 'approve' ? api.POST('/api/v1/servers/{id}/tool-changes/{toolName}/approve', params) : api.POST('/api/v1/servers/{id}/tool-changes/{toolName}/reject', params));
      setMessage(`${change.toolName}: ${answer.approval}. ${answer.pendingToolChanges} still waiting.`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409)
        setError(
          `${change.toolName} was not ${how}d: its definition changed again after this page read it (${err.message}). The list below is the new one: read its diff and decide again.`,
        );
      else setError(errorText(err));
    }
    onDecided();
  }
  return (
    <section aria-labelledby="changes-title" id="tool-changes">
      <h2 id="changes-title">Tool changes waiting ({list.pendingToolChanges})</h2>
      <ErrorNote error={error} />
      {message && <Notice>{message}</Notice>}
      {list.changes.length === 0 && <p className="muted">Nothing waits for a decision.</p>}
      <ul className="tools">
        {list.changes.map((c) => (
          <li key={`${c.toolName}@${c.hash}`} className="tool change" data-change={c.toolName}>
            <div className="change-head">
              <span className="mono strong">{c.toolName}</span> <span className={`badge change-${c.status}`}>{c.status}</span>{' '}
              <span className="badge">{c.kind === 'added' ? 'new tool' : 'changed'}</span>{' '}
              <span className="muted small">
                seen <When at={c.seenAt} /> · <span className="mono" title={c.hash}>{c.hash.slice(0, 12)}</span>
                {c.approvedHash && (
                  <>
                    {' '}
                    (approved: <span className="mono" title={c.approvedHash}>{c.approvedHash.slice(0, 12)}</span>)
                  </>
                )}
              </span>
            </div>
            {c.fields.map((f) => (
              <FieldDiff key={f.field} field={f.field} before={f.before} after={f.after} />
            ))}
            <details>
              <summary>The whole definition waiting</summary>
              <Json value={c.tool} label={`${c.toolName}: the definition waiting`} />
            </details>
            <div className="actions" role="group" aria-label={`Decide on ${c.toolName}`}>
              <button type="button" onClick={() => void decide(c, 'approve')}>
                Approve {c.toolName}
              </button>
              {c.status === 'pending' && (
                <button type="button" className="danger" onClick={() => void decide(c, 'reject')}>
                  Reject {c.toolName}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The owner's override of one tool: title, description, annotations, disabled. Empty fields: the server's own. */
export function OverrideEditor({ serverId, tool, onSaved }: { serverId: string; tool: Tool; onSaved: (what: string) => void }) {
  const fields = overriddenFields(tool);
  const [title, setTitle] = useState(fields.includes('title') ? (tool.title ?? '') : '');
  const [description, setDescription] = useState(fields.includes('description') ? (tool.description ?? '') : '');
  const [annotations, setAnnotations] = useState(fields.includes('annotations') && tool.annotations ? JSON.stringify(tool.annotations, null, 2) : '');
  const [disabled, setDisabled] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = (f: string) => `ov-${f}-${tool.name.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const path = { params: { path: { id: serverId, toolName: tool.name } } };
  async function save(e: FormEvent) {
    e.preventDefault();
    setError(null);
    let parsed: Record<string, unknown> | null = null;
    if (annotations.trim()) {
      try {
        parsed = JSON.parse(annotations) as Record<string, unknown>;
      } catch (err) {
        setError(`Annotations are not JSON: ${(err as Error).message}`);
        return;
      }
    }
    try {
      await ok(api.PUT('/api/v1/servers/{id}/tools/{toolName}/override', { ...path, body: { title: title || null, description: description || null, annotations: parsed, disabled } }));
      onSaved(disabled ? `${tool.name} disabled.` : `Override of ${tool.name} saved.`);
    } catch (err) {
      setError(errorText(err));
    }
  }
  return (
    <form className="override" onSubmit={save} aria-label={`Override ${tool.name}`}>
      <p className="muted small">What callers see in place of what the server sent; empty: the server's own. Calls still reach the tool by its name.</p>
      <Field id={id('title')} label="Title override">
        <input {...described(id('title'))} value={title} onChange={(e) => setTitle(e.target.value)} maxLength={512} />
      </Field>
      <Field id={id('description')} label="Description override">
        <textarea {...described(id('description'))} rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <Field id={id('annotations')} label="Annotations override (JSON)">
        <textarea {...described(id('annotations'))} className="mono" rows={2} value={annotations} onChange={(e) => setAnnotations(e.target.value)} spellCheck={false} placeholder='{"readOnlyHint": true}' />
      </Field>
      <div className="field checkbox">
        <input id={id('disabled')} type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} />
        <label htmlFor={id('disabled')}>Disable this tool (not listed, searched or callable)</label>
      </div>
      <ErrorNote error={error} />
      <div className="actions">
        <button type="submit">Save the override</button>
        {fields.length > 0 && (
          <ConfirmButton
            label="Remove the override"
            confirm={`Serve ${tool.name} as the server sent it?`}
            onConfirm={() =>
              ok(api.DELETE('/api/v1/servers/{id}/tools/{toolName}/override', path))
                .then(() => onSaved(`Override of ${tool.name} removed.`))
                .catch((err) => setError(errorText(err)))
            }
          />
        )}
      </div>
    </form>
  );
}

/** Tools discovered and not served, and why (pending, rejected, disabled); a disabled one can be enabled again. */
export function WithheldTools({ serverId, withheld, writable, onChanged }: { serverId: string; withheld: Withheld[]; writable: boolean; onChanged: (what: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  if (withheld.length === 0) return null;
  return (
    <section aria-labelledby="withheld-title">
      <h3 id="withheld-title">Not served ({withheld.length})</h3>
      <ErrorNote error={error} />
      <ul className="plain">
        {withheld.map((w) => (
          <li key={w.tool.name} data-withheld={w.tool.name}>
            <span className="mono">{w.tool.name}</span> <span className={`badge change-${w.reason}`}>{w.reason}</span>{' '}
            {w.reason === 'disabled' && writable && (
              <button
                type="button"
                className="link-button"
                onClick={() =>
                  ok(api.DELETE('/api/v1/servers/{id}/tools/{toolName}/override', { params: { path: { id: serverId, toolName: w.tool.name } } }))
                    .then(() => onChanged(`${w.tool.name} enabled again (its override removed).`))
                    .catch((err) => setError(errorText(err)))
                }
              >
                Enable {w.tool.name} again
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
