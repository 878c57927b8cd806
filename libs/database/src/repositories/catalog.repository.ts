import { ServerKind, ServerStatus } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { PRISMA } from '../tokens';

/** One tool of a live server, as the tool catalog holds it: the definition kept as its JSON text. */
export interface CatalogToolRow {
  serverId: string;
  toolName: string;
  /** The whole ToolDefinition (name, title, description, inputSchema, outputSchema, annotations) as JSON. */
  definition: string;
}

/** What the catalog needs of a server to scope, filter and route calls to it. */
export interface CatalogServerRow {
  id: string;
  name: string;
  kind: ServerKind;
  tenantId: string | null;
  status: ServerStatus;
  enabled: boolean;
  /** Whether its tools are searchable and callable now (see LIVE below). */
  live: boolean;
  /** Changes whenever how the server is reached changes (address, command, headers, credentials): pooled sessions must not outlive it. */
  connection: string;
}

export interface CatalogSnapshot {
  servers: CatalogServerRow[];
  tools: CatalogToolRow[];
  /** The reader's lower bound for the next changesSince(): every change from an older transaction is included. */
  xmin: bigint;
}

export interface CatalogChangeRow {
  id: bigint;
  serverId: string;
}

export interface CatalogChanges {
  changes: CatalogChangeRow[];
  xmin: bigint;
}

/**
 * A server's tools are searchable and callable while it is enabled and its tool list comes from a successful
 * discovery that no final failure has overruled: CONNECTED, or DISCOVERING again after having been discovered
 * (a periodic re-discovery passes through DISCOVERING and must not make the tools vanish meanwhile).
 */
const LIVE = Prisma.sql`s.enabled AND (s.status = 'CONNECTED' OR (s.status = 'DISCOVERING' AND s.last_discovered_at IS NOT NULL))`;

const CONNECTION = Prisma.sql`md5(json_build_array(s.transport, s.url, s.command, s.args, s.env, s.headers,
  s.credentials_cipher, s.credentials_env, s.app_slug, s.account_id)::text)`;

const TOOL_JSON = Prisma.sql`(
  jsonb_build_object('name', t.name, 'inputSchema', t.input_schema)
  || CASE WHEN t.title IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('title', t.title) END
  || CASE WHEN t.description IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('description', t.description) END
  || CASE WHEN t.output_schema IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('outputSchema', t.output_schema) END
  || CASE WHEN t.annotations IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('annotations', t.annotations) END
)::text`;

interface RawServer {
  id: string;
  name: string;
  kind: ServerKind;
  tenant_id: string | null;
  status: ServerStatus;
  enabled: boolean;
  live: boolean;
  connection: string;
}

interface RawTool {
  server_id: string;
  tool_name: string;
  definition: string;
}

function toServer(r: RawServer): CatalogServerRow {
  return { id: r.id, name: r.name, kind: r.kind, tenantId: r.tenant_id, status: r.status, enabled: r.enabled, live: r.live, connection: r.connection };
}

function toTool(r: RawTool): CatalogToolRow {
  return { serverId: r.server_id, toolName: r.tool_name, definition: r.definition };
}

/**
 * The tool catalog's reads: every live server's tools at once, one server's again after a change, and the
 * change feed that the triggers on `tools` and `servers` append to (migration 20261130100000).
 */
@Injectable()
export class CatalogRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** The oldest transaction still running now: changes of older transactions are all visible to a read that follows. */
  async currentXmin(): Promise<bigint> {
    const rows = await this.prisma.$queryRaw<{ xmin: bigint }[]>`SELECT (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint AS xmin`;
    return BigInt(rows[0].xmin);
  }

  /**
   * Every live server and its tools. The xmin is taken before the reads, so a change committed while they
   * run is also reported by the next changesSince(xmin): reloading a server twice is harmless, missing one is not.
   */
  async loadAll(): Promise<CatalogSnapshot> {
    const xmin = await this.currentXmin();
    const servers = await this.prisma.$queryRaw<RawServer[]>`
      SELECT s.id, s.name, s.kind, s.tenant_id, s.status, s.enabled, true AS live, ${CONNECTION} AS connection
        FROM servers s
       WHERE ${LIVE}`;
    const tools = await this.prisma.$queryRaw<RawTool[]>`
      SELECT t.server_id, t.name AS tool_name, ${TOOL_JSON} AS definition
        FROM tools t
        JOIN servers s ON s.id = t.server_id
       WHERE ${LIVE}
       ORDER BY t.server_id, t.position, t.name`;
    return { servers: servers.map(toServer), tools: tools.map(toTool), xmin };
  }

  /** Some servers as they are now (absent ones are deleted), with the tools of those that are live. */
  async loadServers(ids: string[]): Promise<{ servers: CatalogServerRow[]; tools: CatalogToolRow[] }> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return { servers: [], tools: [] };
    const list = Prisma.join(valid.map((id) => Prisma.sql`${id}::uuid`));
    const servers = await this.prisma.$queryRaw<RawServer[]>`
      SELECT s.id, s.name, s.kind, s.tenant_id, s.status, s.enabled, (${LIVE}) AS live, ${CONNECTION} AS connection
        FROM servers s
       WHERE s.id IN (${list})`;
    const tools = await this.prisma.$queryRaw<RawTool[]>`
      SELECT t.server_id, t.name AS tool_name, ${TOOL_JSON} AS definition
        FROM tools t
        JOIN servers s ON s.id = t.server_id
       WHERE t.server_id IN (${list}) AND ${LIVE}
       ORDER BY t.server_id, t.position, t.name`;
    return { servers: servers.map(toServer), tools: tools.map(toTool) };
  }

  /**
   * Changes written by transactions at or after `xmin` (some may have been seen already: the caller skips
   * their ids), and the xmin to pass next time. Read in one statement, so the xmin and the rows share a snapshot.
   */
  async changesSince(xmin: bigint): Promise<CatalogChanges> {
    const rows = await this.prisma.$queryRaw<{ xmin: bigint; id: bigint | null; server_id: string | null }[]>`
      SELECT x.xmin, c.id, c.server_id
        FROM (SELECT (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint AS xmin) x
        LEFT JOIN catalog_changes c ON c.txid >= ${xmin}
       ORDER BY c.id`;
    const changes: CatalogChangeRow[] = [];
    for (const r of rows) if (r.id !== null && r.server_id !== null) changes.push({ id: BigInt(r.id), serverId: r.server_id });
    return { changes, xmin: BigInt(rows[0].xmin) };
  }

  /** Drops changes older than `ageMs`; returns how many. */
  async prune(ageMs: number): Promise<number> {
    return this.prisma.$executeRaw`DELETE FROM catalog_changes WHERE at < now() - make_interval(secs => ${ageMs / 1000})`;
  }
}
