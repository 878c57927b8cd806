import type { DroppedTool, StoredTool } from '@app/database';
import type { ToolDefinition } from '@app/domain';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { Redact, storableJson, storableText, UncleanableError } from './discovered-text';

/** The largest single tool definition kept (canonical JSON); a bigger one is dropped, not truncated. */
export const MAX_TOOL_BYTES = 256 * 1024;
const MAX_NAME_LENGTH = 256;
/** The `_meta` keys the registry itself writes on what it serves. */
export const REGISTRY_META_PREFIX = 'dev.mcp-registry/';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 8785 (JSON Canonicalization Scheme): equal definitions give equal text, whatever the key order. */
export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? 'null';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** sha256 of the definition's canonical JSON: any change to any field is a change. */
export function toolHash(tool: ToolDefinition): string {
  return sha256(canonicalJson(tool));
}

/** The hash of a whole listing: its tools by name, each with its definition's hash (order is not a change). */
export function listingHash(tools: readonly { name: string; hash: string }[]): string {
  return sha256(canonicalJson(Object.fromEntries(tools.map((t) => [t.name, t.hash]))));
}

export type ToolCheck = { ok: true; tool: StoredTool } | { ok: false; reason: string; name?: string };

function optionalString(raw: Record<string, unknown>, field: string): string | undefined | Error {
  const v = raw[field];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : new Error(`${field} is not a string`);
}

function optionalObject(raw: Record<string, unknown>, field: string): Record<string, unknown> | undefined | Error {
  const v = raw[field];
  if (v === undefined || v === null) return undefined;
  return isObject(v) ? v : new Error(`${field} is not an object`);
}

function optionalArray(raw: Record<string, unknown>, field: string): unknown[] | undefined | Error {
  const v = raw[field];
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v : new Error(`${field} is not an array`);
}

/**
 * Checks one tool as a server listed it, on its own: a malformed tool is reported and left out, and the others
 * are kept. What is kept is every field MCP defines for a tool (name, title, description, inputSchema,
 * outputSchema, annotations, icons, execution, _meta), as sent; fields MCP does not define are not stored.
 */
export function checkTool(raw: unknown): ToolCheck {
  if (!isObject(raw)) return { ok: false, reason: 'the entry is not an object' };
  const name = raw.name;
  if (typeof name !== 'string' || name.length === 0) return { ok: false, reason: 'name is missing or not a string' };
  if (name.length > MAX_NAME_LENGTH) return { ok: false, name: name.slice(0, 64), reason: `name is longer than ${MAX_NAME_LENGTH} characters` };
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return { ok: false, name: JSON.stringify(name).slice(0, 64), reason: 'name contains control characters' };
  const title = optionalString(raw, 'title');
  const description = optionalString(raw, 'description');
  const outputSchema = optionalObject(raw, 'outputSchema');
  const annotations = optionalObject(raw, 'annotations');
  const icons = optionalArray(raw, 'icons');
  const execution = optionalObject(raw, 'execution');
  const meta = optionalObject(raw, '_meta');
  for (const v of [title, description, outputSchema, annotations, icons, execution, meta]) if (v instanceof Error) return { ok: false, name, reason: v.message };
  const inputSchema = raw.inputSchema;
  if (!isObject(inputSchema)) return { ok: false, name, reason: 'inputSchema is missing or not an object' };
  if (inputSchema.type !== 'object') return { ok: false, name, reason: 'inputSchema is not a schema of type "object"' };
  const tool: ToolDefinition = { name, inputSchema };
  if (title !== undefined) tool.title = title as string;
  if (description !== undefined) tool.description = description as string;
  if (outputSchema !== undefined) tool.outputSchema = outputSchema as Record<string, unknown>;
  if (annotations !== undefined) tool.annotations = annotations as Record<string, unknown>;
  if (icons !== undefined) tool.icons = icons as unknown[];
  if (execution !== undefined) tool.execution = execution as Record<string, unknown>;
  if (meta !== undefined) {
    // The registry's own marks (an owner's override, a virtual server's source) are the registry's to write: a
    // server that sends them would pass its text off as an owner's decision.
    const own = Object.entries(meta as Record<string, unknown>).filter(([key]) => !key.startsWith(REGISTRY_META_PREFIX));
    tool._meta = Object.fromEntries(own);
  }
  const canonical = canonicalJson(tool);
  if (Buffer.byteLength(canonical) > MAX_TOOL_BYTES) return { ok: false, name, reason: `the definition is larger than ${MAX_TOOL_BYTES / 1024} KiB` };
  return { ok: true, tool: { ...tool, hash: sha256(canonical) } };
}

/** How many dropped tools are described on a run; beyond that they are only counted. */
export const MAX_DROPPED_REPORTED = 100;

/**
 * Collects kept and dropped tools across pages: duplicates by name are dropped after the first. Each entry is
 * cleaned (U+0000 and lone surrogates removed from every string and key) and redacted of the server's secrets
 * before it is checked, so what is kept, hashed and compared is what is stored.
 */
export class ToolCollector {
  readonly tools: StoredTool[] = [];
  readonly dropped: DroppedTool[] = [];
  droppedCount = 0;
  listed = 0;
  private readonly seen = new Map<string, number>();

  constructor(private readonly redact: Redact = (t) => t) {}

  add(raw: unknown): void {
    const index = this.listed++;
    let cleaned: unknown;
    try {
      cleaned = storableJson(raw, `tools[${index}]`, this.redact);
    } catch (err) {
      if (!(err instanceof UncleanableError)) throw err;
      const name = (raw as { name?: unknown } | null)?.name;
      this.drop({ index, name: typeof name === 'string' ? this.redact(storableText(name)).slice(0, 64) : undefined, reason: `${err.field} ${err.why}` });
      return;
    }
    const check = checkTool(cleaned);
    if (!check.ok) {
      this.drop({ index, name: check.name, reason: check.reason });
      return;
    }
    const first = this.seen.get(check.tool.name);
    if (first !== undefined) {
      this.drop({ index, name: check.tool.name, reason: `duplicate name (first listed at position ${first})` });
      return;
    }
    this.seen.set(check.tool.name, index);
    this.tools.push(check.tool);
  }

  private drop(entry: DroppedTool): void {
    this.droppedCount++;
    if (this.dropped.length < MAX_DROPPED_REPORTED) this.dropped.push(entry);
  }
}
