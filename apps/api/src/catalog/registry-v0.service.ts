import { APP_CONFIG, AppConfig } from '@app/config';
import { CatalogDiscovery, CatalogEntryRecord, CatalogEntryRepository, CatalogScope, ServerRepository } from '@app/database';
import { DISCOVERY_META, OFFICIAL_META, SERVER_SCHEMA_URL } from '@app/catalog';
import { InvalidInputError, NotFoundError, Principal, ServerKind, ServerRecord, ServerStatus, statusToWire } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { CATALOG_NAME_LABEL } from './catalog-registration';

export interface ServerResponse {
  server: Record<string, unknown>;
  _meta: Record<string, unknown>;
}
export interface ServerList {
  servers: ServerResponse[];
  metadata: { nextCursor?: string; count: number };
}
export interface V0Query {
  cursor?: string;
  limit?: number;
  search?: string;
  updated_since?: string;
  version?: string;
  include_deleted?: string;
}

const DEFAULT_LIMIT = 30;
const MAX_LIMIT = 100;

const slug = (name: string) => name.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 150) || 'server';

function discoveryMeta(found: CatalogDiscovery[]): Record<string, unknown> | undefined {
  if (found.length === 0) return undefined;
  return {
    servers: found.map((d) => ({
      serverId: d.serverId,
      name: d.serverName,
      status: statusToWire(d.status as ServerStatus),
      statusReason: d.statusReason,
      lastDiscoveredAt: d.lastDiscoveredAt?.toISOString() ?? null,
      tools: d.tools.map((t) => ({ name: t.name, ...(t.title ? { title: t.title } : {}), ...(t.description ? { description: t.description } : {}) })),
    })),
  };
}

/**
 * The official Registry API (/v0.1) over the catalog and the registry's own servers, scoped to the caller's
 * key, with what discovery found under `_meta["dev.mcp-registry/discovery"]`.
 */
@Injectable()
export class RegistryV0Service {
  constructor(
    private readonly entries: CatalogEntryRepository,
    private readonly servers: ServerRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private scopeOf(principal: Principal): CatalogScope {
    return principal.type === 'tenant' ? { tenantId: principal.tenantId } : {};
  }

  /** The name a server of our own is served under: the platform's under one namespace, each tenant's under its own. */
  servedName(server: ServerRecord): string {
    return server.tenantId ? `${server.tenantId}.tenants.registry.local/${slug(server.name)}` : `registry.local/${slug(server.name)}`;
  }

  /** A server registered here, as a server.json: its remote (non-secret headers with their values, secret ones named only). */
  serverJsonOf(server: ServerRecord): Record<string, unknown> {
    const description = (server.serverTitle ?? server.instructions?.split('\n')[0] ?? `${server.name}, registered in the MCP registry`).slice(0, 100) || server.name.slice(0, 100);
    const remote = server.url && (server.transport === 'streamable-http' || server.transport === 'sse')
      ? [{
          type: server.transport,
          url: server.url,
          ...(Object.keys(server.headers).length || server.hasCredentials
            ? {
                headers: [
                  ...Object.entries(server.headers).map(([name, value]) => ({ name, value })),
                  ...(server.hasCredentials ? [{ name: 'Authorization', description: 'The credentials the registry holds (write-only)', isSecret: true, isRequired: true }] : []),
                ],
              }
            : {}),
        }]
      : undefined;
    return {
      $schema: SERVER_SCHEMA_URL,
      name: this.servedName(server),
      description,
      version: server.serverVersion?.slice(0, 255) || '0.0.0',
      ...(server.serverTitle ? { title: server.serverTitle.slice(0, 100) } : {}),
      ...(remote ? { remotes: remote } : {}),
    };
  }

  private async serverResponseOf(principal: Principal, server: ServerRecord): Promise<ServerResponse> {
    const found = await this.entries.discoveryOfServers([server.id]);
    return {
      server: this.serverJsonOf(server),
      _meta: {
        [OFFICIAL_META]: { status: 'active', publishedAt: server.createdAt.toISOString(), updatedAt: server.updatedAt.toISOString(), isLatest: true },
        ...(found.length ? { [DISCOVERY_META]: discoveryMeta(found) } : {}),
      },
    };
  }

  private async entryResponses(scope: CatalogScope, rows: CatalogEntryRecord[]): Promise<ServerResponse[]> {
    const found = await this.entries.discoveryOf(scope, rows.map((r) => r.name), CATALOG_NAME_LABEL);
    return rows.map((e) => {
      const mine = found.filter((d) => d.catalogName === e.name);
      return {
        server: e.serverJson,
        _meta: {
          [OFFICIAL_META]: {
            status: e.status,
            ...(e.statusMessage ? { statusMessage: e.statusMessage } : {}),
            statusChangedAt: e.statusChangedAt.toISOString(),
            publishedAt: e.publishedAt.toISOString(),
            updatedAt: e.updatedAt.toISOString(),
            isLatest: e.isLatest,
          },
          ...(mine.length ? { [DISCOVERY_META]: discoveryMeta(mine) } : {}),
        },
      };
    });
  }

  /**
   * GET /v0.1/servers: the catalog's entries first, then the registry's own servers (those not made from the
   * catalog), one opaque cursor walking both.
   */
  async list(principal: Principal, q: V0Query): Promise<ServerList> {
    const limit = q.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new InvalidInputError(`limit: must be an integer from 1 to ${MAX_LIMIT}`, [{ field: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` }]);
    let updatedSince: Date | undefined;
    if (q.updated_since !== undefined) {
      updatedSince = new Date(q.updated_since);
      if (Number.isNaN(updatedSince.getTime())) throw new InvalidInputError('updated_since: must be an RFC 3339 date-time', [{ field: 'updated_since', message: 'must be an RFC 3339 date-time' }]);
    }
    const includeDeleted = q.include_deleted === 'true' || updatedSince !== undefined;
    const cursor = q.cursor ?? 'c.';
    const bad = () => new InvalidInputError('cursor: is not a cursor of this list', [{ field: 'cursor', message: 'is not a cursor of this list' }]);
    const phase = cursor.slice(0, 2);
    if (phase !== 'c.' && phase !== 's.') throw bad();
    const token = cursor.slice(2) || undefined;
    const scope = this.scopeOf(principal);
    const out: ServerResponse[] = [];
    let next: string | undefined;
    if (phase === 'c.') {
      const page = await this.entries.list(scope, {
        name: q.search?.trim() || undefined,
        includeDeleted,
        latestOnly: q.version === 'latest',
        version: q.version && q.version !== 'latest' ? q.version : undefined,
        updatedSince,
      }, { pageSize: limit, pageToken: token });
      out.push(...(await this.entryResponses(scope, page.items)));
      next = page.nextPageToken ? `c.${page.nextPageToken}` : 's.';
    }
    if (phase === 's.' || (out.length < limit && next === 's.')) {
      const room = limit - out.length;
      const page = await this.servers.list(principal, { q: q.search?.trim() || undefined }, { pageSize: room, pageToken: phase === 's.' ? token : undefined });
      const own = page.items.filter(
        (s) => s.kind !== ServerKind.INTEGRATION && !(CATALOG_NAME_LABEL in s.metadata) && (!updatedSince || s.updatedAt > updatedSince) && (!q.version || q.version === 'latest' || q.version === (s.serverVersion || '0.0.0')),
      );
      for (const s of own) out.push(await this.serverResponseOf(principal, s));
      next = page.nextPageToken ? `s.${page.nextPageToken}` : undefined;
    }
    return { servers: out, metadata: { ...(next ? { nextCursor: next } : {}), count: out.length } };
  }

  /** Our own server served under this name, if one is. */
  private async ownServer(principal: Principal, name: string): Promise<ServerRecord | undefined> {
    const slash = name.indexOf('/');
    if (slash < 0) return undefined;
    // The served name is a slug of the registered one: look up by its longest plain word, then compare exactly.
    const word = name.slice(slash + 1).split(/[^a-zA-Z0-9]+/).reduce((a, b) => (b.length > a.length ? b : a), '');
    const page = await this.servers.list(principal, { q: word || undefined }, { pageSize: 100 });
    return page.items.find((s) => this.servedName(s) === name && !(CATALOG_NAME_LABEL in s.metadata) && s.kind !== ServerKind.INTEGRATION);
  }

  async versions(principal: Principal, name: string, includeDeleted: boolean): Promise<ServerList> {
    const scope = this.scopeOf(principal);
    const rows = await this.entries.versions(scope, name, includeDeleted);
    if (rows.length) {
      const servers = await this.entryResponses(scope, rows);
      return { servers, metadata: { count: servers.length } };
    }
    const own = await this.ownServer(principal, name);
    if (!own) throw new NotFoundError('Server not found');
    return { servers: [await this.serverResponseOf(principal, own)], metadata: { count: 1 } };
  }

  async version(principal: Principal, name: string, version: string, includeDeleted: boolean): Promise<ServerResponse> {
    const scope = this.scopeOf(principal);
    const row = await this.entries.findVersion(scope, name, version, includeDeleted);
    if (row) return (await this.entryResponses(scope, [row]))[0];
    const own = await this.ownServer(principal, name);
    if (!own || (version !== 'latest' && version !== (own.serverVersion || '0.0.0'))) throw new NotFoundError('Server not found');
    return this.serverResponseOf(principal, own);
  }

  /** GET /api/v1/servers/{id}/server.json */
  async serverJson(principal: Principal, id: string): Promise<Record<string, unknown>> {
    const server = await this.servers.findById(id, principal);
    if (!server) throw new NotFoundError(`server ${id} not found`);
    const label = server.metadata[CATALOG_NAME_LABEL];
    if (label) {
      const entry = await this.entries.findVersion(principal.type === 'tenant' ? { tenantId: principal.tenantId } : { allTenants: true }, label, server.metadata['catalog.version'] ?? 'latest', true);
      if (entry) return entry.serverJson;
    }
    return this.serverJsonOf(server);
  }
}
