import { InvalidInputError, textProblem } from '@app/domain';

/**
 * The rules every request's input obeys, on every path (the REST API, the RPC API and /mcp alike), before
 * validation or any service sees it. The body's size is bounded where it is read (BODY_LIMIT); here its
 * shape: how deep it nests, which keys it may use, and that every string in it (keys included) is text
 * PostgreSQL can store unchanged. The query string and the path segments obey the same string rule.
 */

/** Deeper than any registration, RPC body or JSON-RPC message needs; deeper input is refused before anything walks it recursively. */
export const MAX_BODY_DEPTH = 64;

/** Keys that reach an object's prototype when assigned. */
const POISONED = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Where a body holds data of someone else's (tool arguments, JSON-RPC params): passed through untouched and
 * never mapped onto classes, so there only __proto__ is refused (a tool may well take a parameter named
 * "prototype"). Depth and the string rule hold there too.
 */
export type OpaqueRule = (key: string, depth: number) => boolean;

/** The REST and RPC bodies: `arguments` of mcp-call-tool is the tool's. */
export const REST_OPAQUE: OpaqueRule = (key, depth) => depth === 0 && key === 'arguments';
/** JSON-RPC messages, alone or in a batch: `params` belongs to the method. */
export const JSON_RPC_OPAQUE: OpaqueRule = (key, depth) => depth <= 1 && key === 'params';

function refuse(field: string, message: string): InvalidInputError {
  return new InvalidInputError(`${field}: ${message}`, [{ field, message }]);
}

/** A field path short enough to quote: a hostile body's key may be a megabyte long. */
function shown(path: string): string {
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

/** Walks a parsed value without recursion; throws on a poisoned key, excessive depth, or a string PostgreSQL cannot store. */
export function inspectValue(value: unknown, root: string, opaqueAt: OpaqueRule = REST_OPAQUE): void {
  const stack: { value: unknown; path: string; depth: number; opaque: boolean }[] = [{ value, path: root, depth: 0, opaque: false }];
  while (stack.length > 0) {
    const { value: v, path, depth, opaque } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) throw refuse(shown(path || 'body'), problem);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) throw refuse(shown(path || 'body'), `is nested more than ${MAX_BODY_DEPTH} levels deep`);
    for (const key of Object.keys(v)) {
      const keyProblem = textProblem(key);
      const child = path ? `${path}.${keyProblem ? '(key)' : key}` : keyProblem ? '(key)' : key;
      if (keyProblem) throw refuse(shown(child), `a field name ${keyProblem}`);
      if (key === '__proto__' || (!opaque && POISONED.has(key))) throw refuse(shown(child), `"${key}" is not an accepted field name`);
      const childOpaque = opaque || (!Array.isArray(v) && opaqueAt(key, depth));
      stack.push({ value: (v as Record<string, unknown>)[key], path: child, depth: depth + 1, opaque: childOpaque });
    }
  }
}

/** A request body: its depth, its keys and its strings. */
export function inspectBody(body: unknown, opaqueAt: OpaqueRule = REST_OPAQUE): void {
  inspectValue(body, '', opaqueAt);
}

/** The parsed query string: each parameter's values (and a bracketed parameter's keys) obey the string rule. */
export function inspectQuery(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  for (const [key, value] of Object.entries(query)) {
    const keyProblem = textProblem(key);
    if (keyProblem) throw refuse('(query parameter name)', keyProblem);
    inspectValue(value, key);
  }
}

/** The path of a request URL (before `?`), each segment as the router decodes it. */
export function inspectPath(url: string): void {
  const path = url.split('?', 1)[0];
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw refuse('path', 'is not valid percent-encoded UTF-8');
    }
    const problem = textProblem(decoded);
    if (problem) throw refuse('path', problem);
  }
}
