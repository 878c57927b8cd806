/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The rule every string the registry takes from a client obeys, wherever it comes in (body, query, path):
 * PostgreSQL's text types cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form (the driver
 * would store U+FFFD in its place, so what is read back is not what was written). Such a string is refused
 * with a reason, never stored altered.
 */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return undefined;
}

/** A duration as a reason says it: in seconds from one second on where a tenth says it whole ("30 s", "1.5 s"), else in milliseconds ("250 ms", "1234 ms"). */
export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 100 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * Text a server, a receiver or an authorization server sent, made safe to quote in a reason: one line (control
 * characters and runs of white space become one space), at most `max` characters, marked "…" where cut.
 */
export function oneLine(text: unknown, max = 200): string {
  // eslint-disable-next-line no-control-regex -- what another party sent is shown as one line of text
  const s = String(text ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max) + '…' : s;
}
