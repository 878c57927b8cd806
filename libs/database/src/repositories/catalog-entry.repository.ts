import { Inject, Injectable } from '@nestjs/common';
import semver from 'semver';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { ownerScopeOf } from '../scope';
import { PRISMA } from '../tokens';
import { AuditEventInput, recordAuditIn } from './audit.repository';
import { shownStatusReason } from './server.mapper';

export type CatalogEntryStatus = 'active' | 'deprecated' | 'deleted';

export interface CatalogEntryRecord {
  id: string;
  tenantId: string | null;
  sourceId: string | null;
  name: string;
  version: string;
  isLatest: boolean;
  status: CatalogEntryStatus;
  statusMessage: string | null;
  serverJson: Record<string, unknown>;
  publishedAt: Date;
  updatedAt: Date;
  statusChangedAt: Date;
}

export interface CatalogEntryWrite {
  id: string;
  name: string;
  version: string;
  serverJson: Record<string, unknown>;
  status: CatalogEntryStatus;
  statusMessage: string | null;
  sourceId?: string | null;
  publishedAt?: Date;
  updatedAt?: Date;
}

/**
 * Whose entries a read sees: the platform's always; with `tenantId` that tenant's too; `allTenants` every
 * tenant's (the admin's own listing).
 */
export interface CatalogScope {
  tenantId?: string;
  allTenants?: boolean;
}

export interface CatalogEntryFilter {
  q?: string;
  name?: string;
  status?: CatalogEntryStatus;
  includeDeleted?: boolean;
  latestOnly?: boolean;
  version?: string;
  updatedSince?: Date;
}

const LIST = 'catalog';

export interface CatalogDiscovery {
  serverId: string;
  serverName: string;
  kind: string;
  catalogName: string;
  status: string;
  statusReason: string | null;
  lastDiscoveredAt: Date | null;
  tools: { name: string; title: string | null; description: string | null }[];
}

/** What a CatalogDiscovery is made of: a server, its status and the tools its last discovery found. */
const DISCOVERED_SERVER = {
  id: true,
  name: true,
  kind: true,
  status: true,
  statusReason: true,
  discovery: { select: { retryReason: true } },
  lastDiscoveredAt: true,
  tools: { select: { name: true, title: true, description: true }, orderBy: { position: 'asc' }, take: 200 },
} satisfies Prisma.ServerSelect;

function toDiscovery(r: Prisma.ServerGetPayload<{ select: typeof DISCOVERED_SERVER }>, catalogName: string): CatalogDiscovery {
  return {
    serverId: r.id,
    serverName: r.name,
    kind: r.kind,
    catalogName,
    status: r.status,
    statusReason: shownStatusReason(r, r.discovery?.retryReason),
    lastDiscoveredAt: r.lastDiscoveredAt,
    tools: r.tools,
  };
}

function toRecord(row: Prisma.CatalogEntryGetPayload<object>): CatalogEntryRecord {
  return {
    id: row.id,
    tenantId: row.tenantId,
    sourceId: row.sourceId,
    name: row.name,
    version: row.version,
    isLatest: row.isLatest,
    status: row.status as CatalogEntryStatus,
    statusMessage: row.statusMessage,
    serverJson: row.serverJson as Record<string, unknown>,
    publishedAt: row.publishedAt,
    updatedAt: row.updatedAt,
    statusChangedAt: row.statusChangedAt,
  };
}

function scopeWhere(scope: CatalogScope): Prisma.CatalogEntryWhereInput {
  if (scope.allTenants) return {};
  if (scope.tenantId && isUuid(scope.tenantId)) return { OR: [{ tenantId: null }, { tenantId: scope.tenantId }] };
  return { tenantId: null };
}

/**
 * The newest version of a name: the highest by semantic versioning when every version is one, else the one
 * published last (as the official registry decides `isLatest`). Deleted versions are never the latest.
 */
function latestOf(rows: { id: string; version: string; status: string; publishedAt: Date }[]): string | undefined {
  const live = rows.filter((r) => r.status !== 'deleted');
  if (live.length === 0) return undefined;
  if (live.every((r) => semver.valid(r.version))) return live.reduce((a, b) => (semver.gt(b.version, a.version) ? b : a)).id;
  return live.reduce((a, b) => (b.publishedAt > a.publishedAt ? b : a)).id;
}

/** Catalog entries: published server descriptions, the platform's (tenant null) and each tenant's own. */
@Injectable()
export class CatalogEntryRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** The owner's entries of these names (every version), to compare an import with. */
  async findByNames(tenantId: string | null, names: string[]): Promise<CatalogEntryRecord[]> {
    if (names.length === 0) return [];
    const rows = await this.prisma.catalogEntry.findMany({ where: { ownerScope: ownerScopeOf(tenantId), name: { in: [...new Set(names)] } } });
    return rows.map(toRecord);
  }

  /**
   * Writes the owner's entries in one transaction (all or none): new ones inserted, the others replaced, and
   * `isLatest` recomputed for every name touched.
   */
  async write(tenantId: string | null, inserts: CatalogEntryWrite[], updates: CatalogEntryWrite[]): Promise<void> {
    const ownerScope = ownerScopeOf(tenantId);
    const now = new Date();
    await this.prisma.$transaction(async (tx) => {
      if (inserts.length) {
        await tx.catalogEntry.createMany({
          data: inserts.map((w) => ({
            id: w.id,
            tenantId,
            ownerScope,
            sourceId: w.sourceId ?? null,
            name: w.name,
            version: w.version,
            status: w.status,
            statusMessage: w.statusMessage,
            serverJson: w.serverJson as Prisma.InputJsonValue,
            publishedAt: w.publishedAt ?? now,
            updatedAt: w.updatedAt ?? now,
            statusChangedAt: now,
          })),
        });
      }
      for (const w of updates) {
        const before = await tx.catalogEntry.findUnique({ where: { ownerScope_name_version: { ownerScope, name: w.name, version: w.version } }, select: { status: true } });
        await tx.catalogEntry.update({
          where: { ownerScope_name_version: { ownerScope, name: w.name, version: w.version } },
          data: {
            serverJson: w.serverJson as Prisma.InputJsonValue,
            status: w.status,
            statusMessage: w.statusMessage,
            ...(w.sourceId !== undefined ? { sourceId: w.sourceId } : {}),
            updatedAt: w.updatedAt ?? now,
            ...(before && before.status !== w.status ? { statusChangedAt: now } : {}),
          },
        });
      }
      const names = [...new Set([...inserts, ...updates].map((w) => w.name))];
      if (names.length === 0) return;
      const rows = await tx.catalogEntry.findMany({ where: { ownerScope, name: { in: names } }, select: { id: true, name: true, version: true, status: true, publishedAt: true, isLatest: true } });
      const byName = new Map<string, typeof rows>();
      for (const r of rows) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
      const latest = new Set<string>();
      for (const versions of byName.values()) {
        const id = latestOf(versions);
        if (id) latest.add(id);
      }
      const flip = rows.filter((r) => r.isLatest !== latest.has(r.id));
      for (const r of flip) await tx.catalogEntry.update({ where: { id: r.id }, data: { isLatest: latest.has(r.id) } });
    });
  }

  async list(scope: CatalogScope, filter: CatalogEntryFilter, page: PageRequest): Promise<Page<CatalogEntryRecord>> {
    const cursor = page.pageToken ? decodeCursor(LIST, page.pageToken) : undefined;
    const and: Prisma.CatalogEntryWhereInput[] = [scopeWhere(scope)];
    if (filter.status) and.push({ status: filter.status });
    else if (!filter.includeDeleted) and.push({ status: { not: 'deleted' } });
    if (filter.q) {
      and.push({
        OR: [
          { name: { contains: filter.q, mode: 'insensitive' } },
          { serverJson: { path: ['description'], string_contains: filter.q } },
          { serverJson: { path: ['title'], string_contains: filter.q } },
        ],
      });
    }
    if (filter.name) and.push({ name: { contains: filter.name, mode: 'insensitive' } });
    if (filter.latestOnly) and.push({ isLatest: true });
    if (filter.version) and.push({ version: filter.version });
    if (filter.updatedSince) and.push({ updatedAt: { gt: filter.updatedSince } });
    if (cursor) and.push({ OR: [{ publishedAt: { gt: cursor.at } }, { publishedAt: cursor.at, id: { gt: cursor.id } }] });
    const rows = await this.prisma.catalogEntry.findMany({ where: { AND: and }, orderBy: [{ publishedAt: 'asc' }, { id: 'asc' }], take: page.pageSize + 1 });
    return toPage(rows.map(toRecord), page.pageSize, LIST, (r) => ({ at: r.publishedAt, id: r.id }));
  }

  /** Every version of one name the scope sees, newest first. */
  async versions(scope: CatalogScope, name: string, includeDeleted = false): Promise<CatalogEntryRecord[]> {
    const rows = await this.prisma.catalogEntry.findMany({
      where: { AND: [scopeWhere(scope), { name }, ...(includeDeleted ? [] : [{ status: { not: 'deleted' } }])] },
      orderBy: [{ publishedAt: 'desc' }, { id: 'desc' }],
    });
    const records = rows.map(toRecord);
    // A tenant's own entry of a name shadows the platform's.
    const own = records.filter((r) => r.tenantId !== null);
    return own.length && scope.tenantId ? own : records.filter((r) => r.tenantId === null || !scope.tenantId);
  }

  /** One version (or the latest) of a name the scope sees. */
  async findVersion(scope: CatalogScope, name: string, version: string, includeDeleted = false): Promise<CatalogEntryRecord | null> {
    const versions = await this.versions(scope, name, includeDeleted);
    if (version === 'latest') return versions.find((v) => v.isLatest) ?? null;
    return versions.find((v) => v.version === version) ?? null;
  }

  /**
   * What discovery found for the servers made from these entries (labelled `catalog.name`) that the scope
   * sees: the platform's servers, and a tenant's own.
   */
  async discoveryOf(scope: CatalogScope, names: string[], label: string): Promise<CatalogDiscovery[]> {
    if (names.length === 0) return [];
    const owners: Prisma.ServerWhereInput = scope.allTenants ? {} : scope.tenantId && isUuid(scope.tenantId) ? { OR: [{ tenantId: null }, { tenantId: scope.tenantId }] } : { tenantId: null };
    const rows = await this.prisma.server.findMany({
      where: { AND: [owners, { OR: [...new Set(names)].map((name) => ({ metadata: { path: [label], equals: name } })) }] },
      select: { ...DISCOVERED_SERVER, metadata: true },
      orderBy: { createdAt: 'asc' },
      take: 500,
    });
    return rows.map((r) => toDiscovery(r, String((r.metadata as Record<string, unknown>)[label] ?? '')));
  }

  /** What discovery found for these servers (the registry's own), in the shape of discoveryOf. */
  async discoveryOfServers(ids: string[]): Promise<CatalogDiscovery[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    const rows = await this.prisma.server.findMany({
      where: { id: { in: valid }, lastDiscoveredAt: { not: null } },
      select: DISCOVERED_SERVER,
    });
    return rows.map((r) => toDiscovery(r, ''));
  }

  /**
   * The platform's BUILT_IN servers made from these entries, disabled with the reason (an entry deleted
   * upstream): they are no longer discovered or called. Each is disabled with the audit event `audit` makes for it,
   * in one transaction: both or neither. Returns their ids.
   */
  async disableBuiltInServersOf(
    names: string[],
    label: string,
    reason: string,
    audit: (server: { id: string; name: string }) => AuditEventInput,
  ): Promise<string[]> {
    if (names.length === 0) return [];
    const where: Prisma.ServerWhereInput = { tenantId: null, kind: 'BUILT_IN', enabled: true, OR: names.map((name) => ({ metadata: { path: [label], equals: name } })) };
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.server.findMany({ where, select: { id: true, name: true } });
      if (rows.length === 0) return [];
      await tx.server.updateMany({ where: { id: { in: rows.map((r) => r.id) } }, data: { enabled: false, status: 'DISCONNECTED', statusReason: reason.slice(0, 500) } });
      await recordAuditIn(tx, rows.map(audit));
      return rows.map((r) => r.id);
    });
  }

  /** Every entry of an owner (the platform's when null), for export, oldest first. */
  async allOf(tenantId: string | null): Promise<CatalogEntryRecord[]> {
    const rows = await this.prisma.catalogEntry.findMany({ where: { ownerScope: ownerScopeOf(tenantId) }, orderBy: [{ publishedAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toRecord);
  }
}
