import { connectionFingerprint, connectionOf, ServerKind, ServerStatus } from '@app/domain';
import type { Transport as DbTransport } from '../generated/prisma/client';
import { Inject, Injectable } from '@nestjs/common';
import { isUuid } from '../page';
import { Sql } from '../sql';
import { SQL } from '../tokens';
import { stringRecord, toAuthConfig, transportFromDb } from './server.mapper';
import {
  LIVE_SERVER,
  SERVED_ANNOTATIONS_TITLE,
  SERVED_DEFINITION,
  SERVED_DESCRIPTION,
  SERVED_TITLE,
  SERVED_TOOL,
  SERVED_TOOLS_HASH,
  TOOL_OVERRIDE_JOIN,
} from './effective-tools';

/** One tool, as the catalog indexes it: what a search ranks by (the index reads it once and keeps the identity). */
export interface CatalogToolRow {
  serverId: string;
  toolName: string;
  title: string | null;
  description: string | null;
  inputSchema: Record<string, unknown> | null;
  annotationsTitle: string | null;
}

/** One tool's whole definition as served (see effective-tools.ts), as JSON text. */
export interface CatalogDefinitionRow {
  serverId: string;
  toolName: string;
  definition: string;
}

/** What the catalog needs of a server to scope, filter and route calls to it. */
export interface CatalogServerRow {
  id: string;
  name: string;
  /** What the server calls itself (its title, else its name), as discovery found it. */
  selfName: string | null;
  /** The opening of the instructions it sent at initialize (at most INSTRUCTIONS_OPENING characters). */
  instructions: string | null;
  kind: ServerKind;
  tenantId: string | null;
  status: ServerStatus;
  enabled: boolean;
  /** Whether its tools are searchable and callable now (LIVE_SERVER in effective-tools.ts). */
  live: boolean;
  /** The fingerprint of how the server is reached (connectionFingerprint): pooled sessions must not outlive a change of it. */
  connection: string;
  /** Changes whenever one of its served tools changes (SERVED_TOOLS_HASH). */
  toolsHash: string;
}

/** What the server's connection is made of (see connectionOf): its fingerprint is computed from them as it is everywhere. */
const CONNECTION_COLUMNS = `s.transport, s.url, s.command, s.args, s.env, s.headers, s.credentials_cipher, s.credentials_env, s.app_slug, s.account_id,
  s.oauth_config, s.oauth_client_secret_cipher`;

/** What the catalog reads of a server's instructions: the search indexes their opening only. */
export const INSTRUCTIONS_OPENING = 1200;

const SERVER_COLUMNS = `s.id, s.name, coalesce(s.server_title, s.server_name) AS self_name, left(s.instructions, ${INSTRUCTIONS_OPENING}) AS instructions, s.kind, s.tenant_id, s.status, s.enabled, ${CONNECTION_COLUMNS}, ${SERVED_TOOLS_HASH} AS tools_hash`;

interface RawServer {
  id: string;
  name: string;
  self_name: string | null;
  instructions: string | null;
  kind: ServerKind;
  tenant_id: string | null;
  status: ServerStatus;
  enabled: boolean;
  live: boolean;
  transport: DbTransport;
  url: string | null;
  command: string | null;
  args: string[] | null;
  env: unknown;
  headers: unknown;
  credentials_cipher: string | null;
  credentials_env: string | null;
  app_slug: string | null;
  account_id: string | null;
  oauth_config: unknown;
  oauth_client_secret_cipher: string | null;
  tools_hash: string;
}

interface RawTool {
  server_id: string;
  tool_name: string;
  title: string | null;
  description: string | null;
  input_schema: Record<string, unknown> | null;
  annotations_title: string | null;
}

interface RawDefinition {
  server_id: string;
  tool_name: string;
  definition: string;
}

const TOOL_COLUMNS = `t.server_id, t.name AS tool_name, ${SERVED_TITLE} AS title, ${SERVED_DESCRIPTION} AS description, t.input_schema,
  ${SERVED_ANNOTATIONS_TITLE} AS annotations_title`;

function toServer(r: RawServer): CatalogServerRow {
  const connection = connectionOf(
    {
      transport: transportFromDb(r.transport),
      url: r.url,
      command: r.command,
      args: r.args ?? [],
      env: stringRecord(r.env),
      headers: stringRecord(r.headers),
      auth: toAuthConfig(r.oauth_config, r.oauth_client_secret_cipher),
      appSlug: r.app_slug,
      accountId: r.account_id,
    },
    { credentialsCipher: r.credentials_cipher, credentialsEnv: r.credentials_env },
  );
  return {
    id: r.id,
    name: r.name,
    selfName: r.self_name,
    instructions: r.instructions,
    kind: r.kind,
    tenantId: r.tenant_id,
    status: r.status,
    enabled: r.enabled,
    live: r.live,
    connection: connectionFingerprint(connection),
    toolsHash: r.tools_hash,
  };
}

function toTool(r: RawTool): CatalogToolRow {
  return {
    serverId: r.server_id,
    toolName: r.tool_name,
    title: r.title,
    description: r.description,
    inputSchema: r.input_schema,
    annotationsTitle: r.annotations_title,
  };
}

/**
 * The tool catalog's reads: every live server's tools at once, and one server's again after a change (which the
 * change feed reports, see ChangeFeedRepository).
 */
@Injectable()
export class CatalogRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  /**
   * One page of the live servers, in id order after `afterId`, with their tools: the start-up load reads the
   * whole catalog page by page, so that what it holds at once stays bounded. A change committed while the pages
   * are read is reported by the change feed, when the feed was started before the first page.
   */
  async loadPage(afterId: string | null, limit: number): Promise<{ servers: CatalogServerRow[]; tools: CatalogToolRow[] }> {
    // Two texts rather than `$1 IS NULL OR s.id > $1`, which a prepared statement's generic plan could not
    // answer from the primary key's order.
    const servers =
      afterId === null
        ? await this.sql.query<RawServer>(
            `SELECT ${SERVER_COLUMNS}, true AS live FROM servers s WHERE ${LIVE_SERVER} ORDER BY s.id LIMIT $1`,
            [limit],
            'catalog.first-page',
          )
        : await this.sql.query<RawServer>(
            `SELECT ${SERVER_COLUMNS}, true AS live FROM servers s WHERE ${LIVE_SERVER} AND s.id > $1::uuid ORDER BY s.id LIMIT $2`,
            [afterId, limit],
            'catalog.page',
          );
    if (servers.length === 0) return { servers: [], tools: [] };
    const tools = await this.sql.query<RawTool>(
      `SELECT ${TOOL_COLUMNS}
         FROM tools t ${TOOL_OVERRIDE_JOIN}
        WHERE t.server_id = ANY($1::uuid[]) AND ${SERVED_TOOL}
        ORDER BY t.server_id, t.position, t.name`,
      [servers.map((r) => r.id)],
      'catalog.page-tools',
    );
    return { servers: servers.map(toServer), tools: tools.map(toTool) };
  }

  /** The definitions (JSON text) of some tools, by server and name; tools that no longer exist are left out. */
  async definitions(keys: { serverId: string; toolName: string }[]): Promise<CatalogDefinitionRow[]> {
    const valid = keys.filter((k) => isUuid(k.serverId));
    if (valid.length === 0) return [];
    const rows = await this.sql.query<RawDefinition>(
      `SELECT t.server_id, t.name AS tool_name, ${SERVED_DEFINITION}::text AS definition
         FROM tools t
         JOIN unnest($1::uuid[], $2::text[]) AS k(server_id, name)
           ON t.server_id = k.server_id AND t.name = k.name
         ${TOOL_OVERRIDE_JOIN}
        WHERE ${SERVED_TOOL}`,
      [valid.map((k) => k.serverId), valid.map((k) => k.toolName)],
      'catalog.definitions',
    );
    return rows.map((r) => ({ serverId: r.server_id, toolName: r.tool_name, definition: r.definition }));
  }

  /** Some servers as they are now (absent ones are deleted), with the tools of those that are live. */
  async loadServers(ids: string[]): Promise<{ servers: CatalogServerRow[]; tools: CatalogToolRow[] }> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return { servers: [], tools: [] };
    const servers = await this.sql.query<RawServer>(
      `SELECT ${SERVER_COLUMNS}, (${LIVE_SERVER}) AS live
         FROM servers s
        WHERE s.id = ANY($1::uuid[])`,
      [valid],
      'catalog.servers',
    );
    const tools = await this.sql.query<RawTool>(
      `SELECT ${TOOL_COLUMNS}
         FROM tools t
         JOIN servers s ON s.id = t.server_id
         ${TOOL_OVERRIDE_JOIN}
        WHERE t.server_id = ANY($1::uuid[]) AND ${LIVE_SERVER} AND ${SERVED_TOOL}
        ORDER BY t.server_id, t.position, t.name`,
      [valid],
      'catalog.servers-tools',
    );
    return { servers: servers.map(toServer), tools: tools.map(toTool) };
  }
}
