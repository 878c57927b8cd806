import { InvalidInputError, ListedItem, ListingKind } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { isUuid, Page, PageRequest } from '../page';
import { Sql, TransactionQuery } from '../sql';
import { SQL } from '../tokens';

/**
 * What one discovery listed besides tools, each list in the server's order. A list is null when it was not
 * read: the server does not declare the capability, or the list failed (its reason is then in `errors`).
 */
export interface DiscoveredListings {
  resources: ListedItem[] | null;
  resourceTemplates: ListedItem[] | null;
  prompts: ListedItem[] | null;
  /** Why a declared list was not read whole, by its method (`resources/list`, …); null when every one was. */
  errors: Record<string, string> | null;
}

/** Items written per statement: a server's lists are bounded (see the discovery's ListingLimits), a statement too. */
const BATCH = 1000;

function encodeToken(serverId: string, kind: ListingKind, position: number): string {
  return Buffer.from(JSON.stringify({ l: `${kind}:${serverId}`, p: position }), 'utf8').toString('base64url');
}

function decodeToken(serverId: string, kind: ListingKind, token: string): number {
  const invalid = () => new InvalidInputError('pageToken: is not a page token of this list', [{ field: 'pageToken', message: 'is not a page token of this list' }]);
  if (token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid();
  let parsed: { l?: unknown; p?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { l?: unknown; p?: unknown };
  } catch {
    throw invalid();
  }
  if (!parsed || parsed.l !== `${kind}:${serverId}` || !Number.isSafeInteger(parsed.p) || (parsed.p as number) < 0) throw invalid();
  return parsed.p as number;
}

/**
 * The resources, resource templates and prompts of servers as last discovered. Written only inside a
 * discovery's result transaction (replaceAll); callers check that the caller may see the server before reading.
 */
@Injectable()
export class ServerListingRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  /**
   * Replaces the server's lists inside the caller's transaction (a reader sees the old lists or the new ones, with
   * the tools of the same discovery), writing only what changed: the items no longer listed as they were (gone,
   * moved, or changed) are deleted, and the items not stored as listed are inserted; a discovery that found the
   * lists as they were writes nothing. Their counts and reasons are the server row's, written with the tools.
   */
  async replaceAll(query: TransactionQuery, serverId: string, listings: DiscoveredListings): Promise<void> {
    const kinds: ListingKind[] = [];
    const positions: number[] = [];
    const keys: string[] = [];
    const definitions: string[] = [];
    const add = (kind: ListingKind, items: ListedItem[] | null) =>
      items?.forEach((item, p) => {
        kinds.push(kind);
        positions.push(p);
        keys.push(item.key);
        definitions.push(JSON.stringify(item.definition));
      });
    add('resource', listings.resources);
    add('resource_template', listings.resourceTemplates);
    add('prompt', listings.prompts);
    // Deleted first, in a statement of its own: an item that moved takes a place another item still held.
    const [kept] = await query<{ kept: number }>(
      `WITH incoming AS (SELECT * FROM unnest($2::text[], $3::int[], $4::text[], $5::jsonb[]) AS i(kind, position, key, definition)),
            gone AS (
              DELETE FROM server_listings l
               WHERE l.server_id = $1::uuid
                 AND NOT EXISTS (SELECT 1 FROM incoming i WHERE i.kind = l.kind AND i.position = l.position AND i.key = l.key AND i.definition = l.definition)
              RETURNING 1)
       SELECT ((SELECT count(*) FROM server_listings WHERE server_id = $1::uuid) - (SELECT count(*) FROM gone))::int AS kept`,
      [serverId, kinds, positions, keys, definitions],
      'listings.delete-changed',
    );
    if (kept.kept === kinds.length) return;
    for (let i = 0; i < kinds.length; i += BATCH) {
      const end = i + BATCH;
      await query(
        `INSERT INTO server_listings (server_id, kind, position, key, definition)
         SELECT $1::uuid, i.kind, i.position, i.key, i.definition
           FROM unnest($2::text[], $3::int[], $4::text[], $5::jsonb[]) AS i(kind, position, key, definition)
          WHERE NOT EXISTS (SELECT 1 FROM server_listings l WHERE l.server_id = $1::uuid AND l.kind = i.kind AND l.position = i.position)`,
        [serverId, kinds.slice(i, end), positions.slice(i, end), keys.slice(i, end), definitions.slice(i, end)],
        'listings.insert-missing',
      );
    }
  }

  /** One page of a server's list, in the server's order. */
  async page(serverId: string, kind: ListingKind, request: PageRequest): Promise<Page<ListedItem>> {
    const after = request.pageToken === undefined ? -1 : decodeToken(serverId, kind, request.pageToken);
    if (!isUuid(serverId)) return { items: [] };
    const rows = await this.sql.query<{ position: number; key: string; definition: Record<string, unknown> }>(
      `SELECT position, key, definition FROM server_listings
        WHERE server_id = $1::uuid AND kind = $2 AND position > $3
        ORDER BY position LIMIT $4`,
      [serverId, kind, after, request.pageSize + 1],
      'listings.page',
    );
    const items = rows.slice(0, request.pageSize);
    const last = items[items.length - 1];
    return {
      items: items.map((r) => ({ key: r.key, definition: r.definition })),
      ...(rows.length > request.pageSize && last ? { nextPageToken: encodeToken(serverId, kind, last.position) } : {}),
    };
  }

  /** The listed item of this kind and key, if the last discovery found one. */
  async find(serverId: string, kind: ListingKind, key: string): Promise<ListedItem | undefined> {
    if (!isUuid(serverId)) return undefined;
    const rows = await this.sql.query<ListedItem>(
      `SELECT key, definition FROM server_listings WHERE server_id = $1::uuid AND kind = $2 AND key = $3`,
      [serverId, kind, key],
      'listings.find',
    );
    return rows[0];
  }

  /**
   * The server's resource templates that may expand to `uri`, in the server's order: those whose literal text
   * before the first expression begins the URI and whose literal text after the last one ends it. Only these can
   * match; the caller decides with the template's expressions (uriMatchesTemplate).
   */
  async templatesMatching(serverId: string, uri: string): Promise<string[]> {
    if (!isUuid(serverId)) return [];
    const rows = await this.sql.query<{ key: string }>(
      `SELECT key FROM (
         SELECT key, position, split_part(key, '{', 1) AS head, substring(key from '[^}]*$') AS tail
           FROM server_listings WHERE server_id = $1::uuid AND kind = 'resource_template'
       ) t
        WHERE left($2::text, length(head)) = head AND right($2::text, length(tail)) = tail
        ORDER BY position`,
      [serverId, uri],
      'listings.templates-matching',
    );
    return rows.map((r) => r.key);
  }
}
