import { type ReactNode, useEffect, useRef, useState } from 'react';
import { shortName } from './api';

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
