import { REQUEST_LIMITS } from '@app/domain';
import { InvalidInputError } from '@app/domain';

/** One page of a keyset-paginated list. */
export interface Page<T> {
  items: T[];
  /** Absent on the last page. */
  nextPageToken?: string;
}

export interface PageRequest {
  pageSize: number;
  pageToken?: string;
}

export const MAX_PAGE_SIZE: number = REQUEST_LIMITS.pageSizeMax;
export const DEFAULT_PAGE_SIZE: number = REQUEST_LIMITS.pageSizeDefault;

/** The position after which the next page starts: the sort timestamp and the id that breaks ties. */
export interface Cursor {
  at: Date;
  id: string;
}

/** 0001-01-01 and 9999-12-31T23:59:59.999Z: every instant a row can carry, within PostgreSQL's timestamp range. */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Page tokens are opaque to clients: base64url of `{list, at, id}`. Naming the
 * list keeps a token of one list from being replayed against another.
 */
export function encodeCursor(list: string, cursor: Cursor): string {
  return Buffer.from(JSON.stringify({ l: list, t: cursor.at.toISOString(), i: cursor.id }), 'utf8').toString('base64url');
}

export function decodeCursor(list: string, token: string): Cursor {
  const invalid = () => new InvalidInputError('pageToken: is not a page token of this list', [{ field: 'pageToken', message: 'is not a page token of this list' }]);
  if (token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const p = parsed as { l?: unknown; t?: unknown; i?: unknown };
  if (!p || typeof p !== 'object' || p.l !== list || typeof p.t !== 'string' || typeof p.i !== 'string' || !UUID.test(p.i)) {
    throw invalid();
  }
  // Tokens carry the instant as toISOString wrote it; any other form, or an instant outside what every
  // timestamp column holds (PostgreSQL's range is narrower than JavaScript's), is not one of ours.
  const at = new Date(p.t);
  const ms = at.getTime();
  if (Number.isNaN(ms) || ms < EARLIEST || ms > LATEST || at.toISOString() !== p.t) throw invalid();
  return { at, id: p.i.toLowerCase() };
}

/** Takes one row more than the page to learn whether another page follows. */
export function toPage<T>(rows: T[], pageSize: number, list: string, cursorOf: (row: T) => Cursor): Page<T> {
  if (rows.length <= pageSize) return { items: rows };
  const items = rows.slice(0, pageSize);
  return { items, nextPageToken: encodeCursor(list, cursorOf(items[items.length - 1])) };
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
