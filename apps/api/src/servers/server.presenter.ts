import { DiscoveryRunRecord } from '@app/database';
import { kindToWire, Principal, ServerRecord, statusToWire } from '@app/domain';
import { DiscoveryRunDto, ServerDto } from './server.dto';

const CAPABILITY_ORDER = ['tools', 'resources', 'prompts', 'logging', 'completions'];

/**
 * The capability names a server reported: the keys of its capabilities object,
 * in a fixed order (the stored JSON does not keep the server's key order).
 */
export function capabilityNames(capabilities: Record<string, unknown> | null): string[] {
  if (!capabilities) return [];
  const names = Object.keys(capabilities).filter((k) => capabilities[k] !== undefined && capabilities[k] !== null && capabilities[k] !== false);
  const rank = (n: string) => (CAPABILITY_ORDER.includes(n) ? CAPABILITY_ORDER.indexOf(n) : CAPABILITY_ORDER.length);
  return names.sort((x, y) => rank(x) - rank(y) || x.localeCompare(y));
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A server as the REST API answers it: canonical enum names, no credentials. */
export function toServerDto(s: ServerRecord, principal: Principal): ServerDto {
  const seesEnv = principal.type === 'admin' || s.tenantId === principal.tenantId;
  return {
    id: s.id,
    name: s.name,
    kind: kindToWire(s.kind),
    transport: s.transport,
    url: s.url,
    command: s.command,
    args: s.args,
    // A platform stdio server's environment may configure the program it runs; only the admin reads it.
    ...(seesEnv ? { env: s.env } : {}),
    headers: s.headers,
    hasCredentials: s.hasCredentials,
    authorization: s.authorization ?? { status: 'none' },
    ...(s.auth ? { auth: s.auth } : {}),
    enabled: s.enabled,
    metadata: s.metadata,
    discoveryIntervalSeconds: s.discoveryIntervalSeconds,
    appSlug: s.appSlug,
    accountId: s.accountId,
    tenantId: s.tenantId,
    status: statusToWire(s.status),
    statusReason: s.statusReason,
    version: s.serverVersion ?? '',
    serverName: s.serverName,
    serverTitle: s.serverTitle,
    protocolVersion: s.protocolVersion,
    instructions: s.instructions,
    capabilities: capabilityNames(s.capabilities),
    toolCount: s.toolCount,
    toolPolicy: s.toolPolicy,
    pendingToolChanges: s.pendingToolChanges,
    resourceCount: s.resourceCount,
    promptCount: s.promptCount,
    resourceTemplateCount: s.resourceTemplateCount,
    listingErrors: s.listingErrors,
    discoveryRequestedAt: iso(s.discoveryRequestedAt),
    lastDiscoveredAt: iso(s.lastDiscoveredAt),
    nextDiscoveryAt: iso(s.nextDiscoveryAt),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export function toDiscoveryRunDto(r: DiscoveryRunRecord): DiscoveryRunDto {
  return {
    id: r.id,
    trigger: r.trigger,
    attempt: r.attempt,
    startedAt: r.startedAt.toISOString(),
    finishedAt: iso(r.finishedAt),
    durationMs: r.durationMs,
    outcome: r.outcome,
    error: r.error,
    toolCount: r.toolCount,
    added: r.added,
    removed: r.removed,
    changed: r.changed,
    dropped: r.dropped.map((d) => ({ index: d.index, ...(d.name !== undefined ? { name: d.name } : {}), reason: d.reason })),
    toolsHash: r.toolsHash,
    changes: r.changes,
    held: r.held,
  };
}
