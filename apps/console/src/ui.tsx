import { type ReactNode, useEffect, useRef, useState } from 'react';
import { errorText, shortName } from './api';

export function StatusBadge({ status }: { status: string }) {
  const s = shortName(status);
  return <span className={`badge status-${s.toLowerCase()}`}>{s}</span>;
}

/** A time as "3 min ago", the exact time in its tooltip and for screen readers. */
export function When({ at }: { at?: string | null }) {
  if (!at) return <span className="muted">never</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={date.toLocaleString()}>
      {ago(date)}
    </time>
  );
}

export function ago(date: Date): string {
  const s = Math.round((Date.now() - date.getTime()) / 1000);
  if (s < 0) return 'in ' + span(-s);
  if (s < 5) return 'just now';
  return span(s) + ' ago';
}

/** A period in seconds as people say it: 300 → "5 min", 86400 → "1 d". */
export function every(seconds: number): string {
  return seconds % 86400 === 0 ? `${seconds / 86400} d` : seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

function span(s: number): string {
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

/** Any value a server sent, as indented JSON text (never as markup). */
export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

/** Runs `tick` now and then every `ms` while the tab is visible, never two at once. */
export function usePoll(tick: () => Promise<void>, ms: number, deps: unknown[]): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (stopped) return;
      if (document.visibilityState !== 'hidden') await latest.current().catch(() => undefined);
      if (!stopped) timer = setTimeout(run, ms);
    };
    void run();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
}

/** A button that asks "are you sure" in place (no browser dialog) before it acts. */
export function ConfirmButton({ label, confirm, onConfirm, danger }: { label: string; confirm: string; onConfirm: () => void; danger?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className={danger ? 'danger' : undefined} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={confirm}>
      <span>{confirm}</span>
      <button type="button" className="danger" autoFocus onClick={() => { setAsking(false); onConfirm(); }}>
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** "a=1\nb=2" ↔ {a: "1", b: "2"}: how labels, env and headers are typed in the forms. */
export function parsePairs(text: string, sep: '=' | ':'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const at = line.indexOf(sep);
    if (at < 0) out[line.trim()] = '';
    else out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

export function formatPairs(record: Record<string, string> | null | undefined, sep: '=' | ':'): string {
  return Object.entries(record ?? {})
    .map(([k, v]) => `${k}${sep === ':' ? ': ' : '='}${v}`)
    .join('\n');
}

/** Pages through an API list with its page tokens: tokens[i] is page i's token. */
export function usePages<T>(load: (token: string | undefined) => Promise<{ items: T[]; next?: string | null }>, deps: unknown[]) {
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

/** A value to copy (a secret, an endpoint): read-only, selected on focus, with a Copy button that says when it copied. */
export function CopyField({ id, label, value, copyLabel = 'Copy' }: { id: string; label: string; value: string; copyLabel?: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
    }
  }
  return (
    <div className="copy-row">
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <input id={id} className="mono" readOnly value={value} onFocus={(e) => e.target.select()} />
      <button type="button" onClick={copy}>
        {copied ? 'Copied' : copyLabel}
      </button>
    </div>
  );
}

/** A secret the API gives once (a new key, a signing secret): shown with a Copy button until the person hides it. */
export function ShownOnce({ id, label, value, onHide, children }: { id: string; label: string; value: string; onHide: () => void; children: ReactNode }) {
  return (
    <div className="panel new-key" role="status">
      <p>{children}</p>
      <CopyField id={id} label={label} value={value} />
      <button type="button" onClick={onHide}>
        I have kept it: hide it
      </button>
    </div>
  );
}

/** A table's column headings; `num` ones are right-aligned (counts, durations). */
export function Columns({ names, num = [] }: { names: string[]; num?: string[] }) {
  return (
    <thead>
      <tr>
        {names.map((n) => (
          <th key={n} scope="col" className={num.includes(n) ? 'num' : undefined}>
            {n}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** The way back up: a link to the page this one belongs to. */
export function Crumbs({ to, label }: { to: string; label: string }) {
  return (
    <p className="crumbs">
      <a href={to}>{label}</a> /
    </p>
  );
}

/**
 * A page's actions: each clears the last message and error, runs, then says what it did or what went wrong; an
 * answer that `isAnswer` recognises is handed to `shown`. It resolves to whether the action succeeded.
 * `generation` moves at each action's start and end, so a poll that started before an action can tell that its
 * answer is older than what the action answered, and drop it.
 */
export function useActions<T>(shown: (answer: T) => void = () => undefined) {
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  async function act(what: string, run: () => Promise<T | unknown>, isAnswer: (a: unknown) => boolean = () => false) {
    setMessage(null);
    setError(null);
    generation.current++;
    try {
      const answer = await run();
      generation.current++;
      if (isAnswer(answer)) shown(answer as T);
      setMessage(what);
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    }
  }
  return { act, message, setMessage, error, setError, generation };
}

/** A page whose first answer has not come: its title, and "Loading…" or why it failed. */
export function Loading({ title, error }: { title: string; error: string | null }) {
  return (
    <section>
      <h1>{title}</h1>
      {error ? <ErrorNote error={error} /> : <p aria-busy="true">Loading…</p>}
    </section>
  );
}
