import { InvalidInputError } from './errors';
import { parseKind, ServerKind } from './enums';

/**
 * The bounds of what a client sends to the listing and LLM-facing operations (search, server info, list, call):
 * the one source that the REST DTOs (class-validator, /api/v1) and the registry's MCP tools (zod, /mcp) both
 * read, so that the two doors refuse the same inputs.
 */
export const REQUEST_LIMITS = {
  /** Characters of a search query. */
  queryMaxLength: 1000,
  /** Tools a search returns at most, and by default. */
  searchLimitMax: 50,
  searchLimitDefault: 10,
  /** Entries of a search's `kinds` (there are five kinds) and `serverIds`. */
  kindsMaxItems: 5,
  serverIdsMaxItems: 100,
  /** Servers a list page holds at most, and by default. */
  pageSizeMax: 100,
  pageSizeDefault: 50,
  /** Characters of a page token. */
  pageTokenMaxLength: 512,
  /** Characters of a tool name. */
  toolNameMaxLength: 256,
} as const;

/** A list of kinds as the wire writes them (canonical names, short names or numbers); a value not a kind is a 400 naming the field. */
export function parseKinds(values: readonly unknown[] | undefined, field = 'kinds'): ServerKind[] | undefined {
  return values?.map((value) => {
    const kind = parseKind(value);
    if (!kind) throw new InvalidInputError(`${field}: ${String(value)} is not a server kind`, [{ field, message: 'must be server kinds' }]);
    return kind;
  });
}
