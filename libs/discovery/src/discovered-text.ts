import { McpFailure, McpFailureCode, redactsNothing } from '@app/mcp';

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
// eslint-disable-next-line no-control-regex -- a cheap first look: most strings hold neither
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** Removes U+0000 and lone surrogates from a string. */
export function storableText(text: string): string {
  return SUSPECT.test(text) ? text.replace(UNSTORABLE, '') : text;
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

function keyPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key.slice(0, 40))}]`;
}

/** Whether objects and arrays nest deeper than `max` levels: a walk that copies nothing, run before serializing. */
function nestedDeeperThan(value: object, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/** Cleans (and redacts) a JSON value and its keys at every depth; throws UncleanableError naming the field. */
export function storableJson(value: unknown, field: string, redact: Redact = keep): unknown {
  // The usual case, a server without secrets that sent only storable text, costs one serialization, no copy:
  // JSON writes U+0000 and lone surrogates as \u escapes, and nothing else as \u0000 or \ud800-\udfff.
  if (
    (redact === keep || redactsNothing(redact)) &&
    typeof value === 'object' &&
    value !== null &&
    !nestedDeeperThan(value, MAX_DISCOVERED_DEPTH) &&
    !/\\u(0000|d[89a-f])/i.test(JSON.stringify(value))
  ) {
    return value;
  }
  try {
    return clean(value, redact, 0);
  } catch (err) {
    if (err instanceof Unclean) throw new UncleanableError(field + err.path, err.why);
    throw err;
  }
}

/** Raised deep in a value; the path is built on the way out, so that the usual case builds none. */
class Unclean {
  constructor(
    public path: string,
    readonly why: string,
  ) {}
}

function clean(value: unknown, redact: Redact, depth: number): unknown {
  if (typeof value === 'string') return redact(storableText(value));
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DISCOVERED_DEPTH) throw new Unclean('', `is nested more than ${MAX_DISCOVERED_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      try {
        out[i] = clean(value[i], redact, depth + 1);
      } catch (err) {
        if (err instanceof Unclean) err.path = `[${i}]${err.path}`;
        throw err;
      }
    }
    return out;
  }
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const cleanKey = redact(storableText(key));
    if (Object.prototype.hasOwnProperty.call(out, cleanKey)) {
      throw new Unclean('', `has two keys that are the same once cleaned (${JSON.stringify(cleanKey.slice(0, 40))})`);
    }
    try {
      const cleaned = clean(value[key], redact, depth + 1);
      // A "__proto__" key (JSON.parse makes it an own property) stays a property, not the object's prototype.
      if (cleanKey === '__proto__') Object.defineProperty(out, cleanKey, { value: cleaned, enumerable: true, writable: true, configurable: true });
      else out[cleanKey] = cleaned;
    } catch (err) {
      if (err instanceof Unclean) err.path = `${keyPath(key)}${err.path}`;
      throw err;
    }
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
