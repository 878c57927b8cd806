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
