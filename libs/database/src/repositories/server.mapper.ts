import { OAuthGrant, ServerAuthConfig, ServerAuthorizationView, ServerKind, ServerRecord, ServerStatus, TOOL_POLICIES, ToolPolicy, TransportType } from '@app/domain';
import type { Server, ServerDiscovery, Transport as DbTransport } from '../generated/prisma/client';

const TO_DB: Record<TransportType, DbTransport> = {
  [TransportType.STREAMABLE_HTTP]: 'STREAMABLE_HTTP',
  [TransportType.SSE]: 'SSE',
  [TransportType.STDIO]: 'STDIO',
  [TransportType.IN_PROCESS]: 'IN_PROCESS',
};
const FROM_DB: Record<DbTransport, TransportType> = {
  STREAMABLE_HTTP: TransportType.STREAMABLE_HTTP,
  SSE: TransportType.SSE,
  STDIO: TransportType.STDIO,
  IN_PROCESS: TransportType.IN_PROCESS,
};

export function transportToDb(t: TransportType): DbTransport {
  return TO_DB[t];
}

export function transportFromDb(t: DbTransport): TransportType {
  return FROM_DB[t];
}

export function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

function objectOrNull(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

const AUTHORIZATION_STATUSES = new Set(['none', 'required', 'authorized', 'expired']);

/** The stored view of a server's upstream authorization, read defensively (it is JSON). */
export function toAuthorizationView(value: unknown): ServerAuthorizationView {
  const v = objectOrNull(value);
  if (!v || typeof v.status !== 'string' || !AUTHORIZATION_STATUSES.has(v.status)) return { status: 'none' };
  return {
    status: v.status as ServerAuthorizationView['status'],
    ...(typeof v.issuer === 'string' ? { issuer: v.issuer } : {}),
    ...(Array.isArray(v.scopes) ? { scopes: v.scopes.filter((x): x is string => typeof x === 'string') } : {}),
    ...(typeof v.expiresAt === 'string' ? { expiresAt: v.expiresAt } : {}),
  };
}

export function toAuthConfig(value: unknown, secretCipher: string | null | undefined): ServerAuthConfig | null {
  const v = objectOrNull(value);
  if (!v) return null;
  return {
    ...(typeof v.clientId === 'string' ? { clientId: v.clientId } : {}),
    ...(Array.isArray(v.scopes) ? { scopes: v.scopes.filter((x): x is string => typeof x === 'string') } : {}),
    ...(v.grant === 'authorization_code' || v.grant === 'client_credentials' ? { grant: v.grant as OAuthGrant } : {}),
    hasClientSecret: !!secretCipher,
  };
}

function toToolPolicy(value: string): ToolPolicy {
  return (TOOL_POLICIES as readonly string[]).includes(value) ? (value as ToolPolicy) : 'open';
}

/** What a server's record shows of its discovery row (server_discovery), under the names the record has. */
export interface DiscoveryColumns {
  discoveryRequestedAt: Date | null;
  nextDiscoveryAt: Date | null;
  /** Why the attempt under way failed, while the discovery is tried again. */
  retryReason: string | null;
}

/** A server row with its discovery row's columns beside it (SERVER_COLUMNS over SERVER_FROM, or withDiscovery). */
export type ServerRow = Server & DiscoveryColumns;

/** A server row read through Prisma with `include: { discovery: true }`, as SERVER_COLUMNS reads it. */
export function withDiscovery(row: Server & { discovery: ServerDiscovery | null }): ServerRow {
  const { discovery, ...server } = row;
  return { ...server, discoveryRequestedAt: discovery?.requestedAt ?? null, nextDiscoveryAt: discovery?.nextAt ?? null, retryReason: discovery?.retryReason ?? null };
}

/**
 * The status reason a server shows: a discovery tried again says why its last attempt failed while the server is
 * DISCOVERING (kept on the discovery row, see ServerDiscovery.retryReason); otherwise the reason written with the status.
 */
export function shownStatusReason(row: { status: string; statusReason: string | null }, retryReason: string | null | undefined): string | null {
  return row.status === 'DISCOVERING' && retryReason ? retryReason : row.statusReason;
}

/** A server row as the domain sees it: credentials reduced to whether there are any. */
export function toServerRecord(row: ServerRow): ServerRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    kind: row.kind as ServerKind,
    transport: transportFromDb(row.transport),
    url: row.url,
    command: row.command,
    args: row.args ?? [],
    env: stringRecord(row.env),
    headers: stringRecord(row.headers),
    hasCredentials: row.credentialsCipher !== null || row.credentialsEnv !== null,
    credentialsEnv: row.credentialsEnv,
    enabled: row.enabled,
    metadata: stringRecord(row.metadata),
    discoveryIntervalSeconds: row.discoveryIntervalSeconds,
    appSlug: row.appSlug,
    accountId: row.accountId,
    status: row.status as ServerStatus,
    statusReason: shownStatusReason(row, row.retryReason),
    serverName: row.serverName,
    serverTitle: row.serverTitle,
    serverVersion: row.serverVersion,
    protocolVersion: row.protocolVersion,
    instructions: row.instructions,
    capabilities: objectOrNull(row.capabilities),
    toolCount: row.toolCount,
    resourceCount: row.resourceCount,
    promptCount: row.promptCount,
    resourceTemplateCount: row.resourceTemplateCount,
    listingErrors: row.listingErrors === null ? null : stringRecord(row.listingErrors),
    discoveryRequestedAt: row.discoveryRequestedAt,
    lastDiscoveredAt: row.lastDiscoveredAt,
    nextDiscoveryAt: row.nextDiscoveryAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    auth: toAuthConfig(row.oauthConfig, row.oauthClientSecretCipher),
    authorization: toAuthorizationView(row.oauthView),
    toolPolicy: toToolPolicy(row.toolPolicy),
    pendingToolChanges: row.pendingToolChanges,
  };
}

/** The server `s` with its discovery row `d`: every server has one (made with it, see migration 20261205010000). */
export const SERVER_FROM = `servers s JOIN server_discovery d ON d.server_id = s.id`;

/** Every column of a ServerRow under its Prisma field name, over SERVER_FROM, for plain SQL whose rows go through toServerRecord. */
export const SERVER_COLUMNS = `s.id, s.tenant_id AS "tenantId", s.owner_scope AS "ownerScope", s.name, s.kind, s.transport, s.url, s.command, s.args, s.env, s.headers,
  s.credentials_cipher AS "credentialsCipher", s.credentials_env AS "credentialsEnv", s.enabled, s.metadata,
  s.discovery_interval_seconds AS "discoveryIntervalSeconds", s.app_slug AS "appSlug", s.account_id AS "accountId", s.status,
  s.status_reason AS "statusReason", s.server_name AS "serverName", s.server_title AS "serverTitle", s.server_version AS "serverVersion",
  s.protocol_version AS "protocolVersion", s.instructions, s.capabilities, s.tool_count AS "toolCount", s.resource_count AS "resourceCount",
  s.prompt_count AS "promptCount", s.resource_template_count AS "resourceTemplateCount", s.listing_errors AS "listingErrors",
  s.last_discovered_at AS "lastDiscoveredAt", s.created_at AS "createdAt", s.updated_at AS "updatedAt", s.oauth_config AS "oauthConfig",
  s.oauth_client_secret_cipher AS "oauthClientSecretCipher", s.oauth_view AS "oauthView", s.tool_policy AS "toolPolicy",
  s.pending_tool_changes AS "pendingToolChanges",
  d.requested_at AS "discoveryRequestedAt", d.next_at AS "nextDiscoveryAt", d.retry_reason AS "retryReason"`;
