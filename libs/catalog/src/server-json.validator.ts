import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '@app/domain';
import schema from './server.schema.2025-12-11.json';
import type { ServerJson } from './server-json';

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    // The schema is draft-07 (Ajv's default draft). strict: false because the schema carries `examples` and
    // annotation keywords Ajv's strict mode would refuse; they do not change validation.
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    compiled = ajv.compile(schema);
  }
  return compiled;
}

/** `/packages/0/version` → `packages.0.version`, the way the API names fields elsewhere. */
function fieldOf(error: ErrorObject): string {
  const path = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty: string }).missingProperty));
  return path.join('.') || '(root)';
}

function messageOf(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'pattern') return `must match the pattern ${(error.params as { pattern: string }).pattern}`;
  if (error.keyword === 'enum') return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (error.keyword === 'not' && error.instancePath.endsWith('/version')) return 'must not be "latest" (name an exact version)';
  return error.message ?? 'is invalid';
}

/**
 * The wrong fields of a server.json under schema 2025-12-11, each named once; none when it is valid. Where a
 * field fails one of several alternatives (a transport of stdio, streamable-http or sse), only the summary is
 * kept unless no alternative says more.
 */
export function validateServerJson(doc: unknown): FieldError[] {
  const validate = validator();
  if (validate(doc)) return [];
  const all = validate.errors ?? [];
  // A field that failed every alternative (anyOf/oneOf) is one error, listing what each alternative missed.
  const under = (path: string, p: string) => path === p || path.startsWith(`${p}/`);
  const branchPaths = [...new Set(all.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath))];
  const outermost = branchPaths.filter((p) => !branchPaths.some((o) => o !== p && under(p, o)));
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const push = (field: string, message: string) => {
    const key = `${field}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      errors.push({ field, message });
    }
  };
  for (const error of all) {
    const branch = outermost.find((p) => under(error.instancePath, p));
    if (branch === undefined) {
      push(fieldOf(error), messageOf(error));
      continue;
    }
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf') continue;
    if (error.instancePath !== branch) continue;
    const field = fieldOf(error);
    const reasons = [
      ...new Set(
        all
          .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && under(e.instancePath, branch))
          .map((e) => {
            const sub = fieldOf(e);
            return sub === field ? messageOf(e) : `${sub.startsWith(`${field}.`) ? sub.slice(field.length + 1) : sub} ${messageOf(e)}`;
          }),
      ),
    ];
    push(field, `matches none of its alternatives (${reasons.join('; or ')})`);
  }
  return errors;
}

export function isServerJson(doc: unknown): doc is ServerJson {
  return validateServerJson(doc).length === 0;
}
