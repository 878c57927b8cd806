import { McpFailure, McpFailureCode } from '@app/mcp';

/**
 * What a server sends, made fit to store and to show: PostgreSQL cannot hold U+0000 in text or jsonb, and a
 * lone UTF-16 surrogate is not a character (it becomes U+FFFD or an error on its way to the database). Both
 * are removed from every string, and from every object key at every depth; the server's own secrets are
 * redacted from what is left. A value that cannot be cleaned (two keys that become one, nesting past the bound)
 * is refused with the field it is in.
 */

/** Deeper JSON than this is not cleaned but refused (a schema has a few levels; this is far past any real one). */
export const MAX_DISCOVERED_DEPTH = 256;

// eslint-disable-next-line no-control-regex -- U+0000 is exactly what is removed
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Removes U+0000 and lone surrogates from a string. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '');
}

/** A value that cannot be made storable; `field` names where it is ("tools[3].inputSchema.properties"). */
export class UncleanableError extends Error {
  constructor(
    readonly field: string,
    readonly why: string,
  ) {
    super(`${field} ${why}`);
    this.name = 'UncleanableError';
  }
}

export type Redact = (text: string) => string;

const keep: Redact = (t) => t;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldOf(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key.slice(0, 40))}]`;
}

/** Cleans (and redacts) a JSON value and its keys at every depth; throws UncleanableError naming the field. */
export function storableJson(value: unknown, field: string, redact: Redact = keep, depth = 0): unknown {
  if (typeof value === 'string') return redact(storableText(value));
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DISCOVERED_DEPTH) throw new UncleanableError(field, `is nested more than ${MAX_DISCOVERED_DEPTH} levels deep`);
  if (Array.isArray(value)) return value.map((v, i) => storableJson(v, `${field}[${i}]`, redact, depth + 1));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const cleanKey = redact(storableText(key));
    if (Object.prototype.hasOwnProperty.call(out, cleanKey)) {
      throw new UncleanableError(field, `has two keys that are the same once cleaned (${JSON.stringify(cleanKey.slice(0, 40))})`);
    }
    out[cleanKey] = storableJson(v, fieldOf(field, key), redact, depth + 1);
  }
  return out;
}

/** A string field of what the server said about itself, cleaned; null stays null. */
export function storableField(value: string | null | undefined, redact: Redact = keep): string | null {
  return value === undefined || value === null ? null : redact(storableText(value));
}

/** The failure of a discovery whose answer holds a value that cannot be stored: permanent, naming the field. */
export function uncleanableFailure(err: UncleanableError): McpFailure {
  return new McpFailure(McpFailureCode.ProtocolViolation, `the server's ${err.field} cannot be stored: it ${err.why}`);
}
