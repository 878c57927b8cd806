import { OAuthGrant, ServerAuthConfig, ServerAuthorizationView, ServerKind, ServerRecord, ServerStatus, TOOL_POLICIES, ToolPolicy, TransportType } from '@app/domain';
import type { Server, Transport as DbTransport } from '../generated/prisma/client';

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

/** A server row as the domain sees it: credentials reduced to whether there are any. */
export function toServerRecord(row: Server): ServerRecord {
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
    statusReason: row.statusReason,
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

/** Every column of `servers` under its Prisma field name, for plain SQL whose rows go through toServerRecord. */
export const SERVER_COLUMNS = `id, tenant_id AS "tenantId", owner_scope AS "ownerScope", name, kind, transport, url, command, args, env, headers,
  credentials_cipher AS "credentialsCipher", credentials_env AS "credentialsEnv", enabled, metadata,
  discovery_interval_seconds AS "discoveryIntervalSeconds", app_slug AS "appSlug", account_id AS "accountId", status,
  status_reason AS "statusReason", server_name AS "serverName", server_title AS "serverTitle", server_version AS "serverVersion",
  protocol_version AS "protocolVersion", instructions, capabilities, tool_count AS "toolCount", resource_count AS "resourceCount",
  prompt_count AS "promptCount", resource_template_count AS "resourceTemplateCount", listing_errors AS "listingErrors",
  discovery_requested_at AS "discoveryRequestedAt", last_discovered_at AS "lastDiscoveredAt",
  next_discovery_at AS "nextDiscoveryAt", discovery_lease_owner AS "discoveryLeaseOwner", discovery_lease_until AS "discoveryLeaseUntil",
  created_at AS "createdAt", updated_at AS "updatedAt", oauth_config AS "oauthConfig",
  oauth_client_secret_cipher AS "oauthClientSecretCipher", oauth_view AS "oauthView", tool_policy AS "toolPolicy",
  pending_tool_changes AS "pendingToolChanges"`;
