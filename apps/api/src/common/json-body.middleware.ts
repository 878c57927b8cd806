import { InvalidInputError } from '@app/domain';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** Deeper than any registration or RPC body needs; deeper input is refused before anything walks it recursively. */
export const MAX_BODY_DEPTH = 64;

/** Keys that reach an object's prototype when assigned. */
const POISONED = new Set(['__proto__', 'constructor', 'prototype']);
/**
 * Tool arguments are the upstream tool's data, passed through untouched and never
 * mapped onto classes: there only __proto__ is refused (a tool may well take a
 * parameter named "prototype").
 */
const OPAQUE_FIELD = 'arguments';

function refuse(field: string, message: string): InvalidInputError {
  return new InvalidInputError(`${field}: ${message}`, [{ field, message }]);
}

/** Walks a parsed body without recursion; throws on a poisoned key or excessive depth. */
export function inspectBody(body: unknown): void {
  const stack: { value: unknown; path: string; depth: number; opaque: boolean }[] = [{ value: body, path: '', depth: 0, opaque: false }];
  while (stack.length > 0) {
    const { value, path, depth, opaque } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) throw refuse(path || 'body', `is nested more than ${MAX_BODY_DEPTH} levels deep`);
    for (const key of Object.keys(value)) {
      const child = path ? `${path}.${key}` : key;
      if (key === '__proto__' || (!opaque && POISONED.has(key))) throw refuse(child, `"${key}" is not an accepted field name`);
      const childOpaque = opaque || (depth === 0 && key === OPAQUE_FIELD);
      stack.push({ value: (value as Record<string, unknown>)[key], path: child, depth: depth + 1, opaque: childOpaque });
    }
  }
}

/**
 * The API takes JSON objects: a body that is an array or a bare value, that
 * nests absurdly deep, or that carries a prototype-reaching key (__proto__,
 * constructor, prototype) is a 400 before validation or any service sees it.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  use(req: Request, _res: Response, next: NextFunction): void {
    const body: unknown = req.body;
    if (body === undefined || !['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) return next();
    try {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw refuse('body', 'must be a JSON object');
      inspectBody(body);
    } catch (err) {
      return next(err);
    }
    next();
  }
}
