import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { translatePrismaError } from '../prisma-errors';
import { PRISMA } from '../tokens';

/** The limits the administrator set for one tenant; a limit not named takes the platform default. */
export type TenantLimitOverrides = Partial<Record<'maxServers' | 'maxTools' | 'maxCallsInFlight' | 'toolResultMaxBytes' | 'maxResultBytesInFlight', number>>;

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: Date;
  limits: TenantLimitOverrides;
}

const LIST = 'tenants';
const SELECT = { id: true, name: true, createdAt: true, limits: true } as const;

function toRecord(row: { id: string; name: string; createdAt: Date; limits: Prisma.JsonValue }): TenantRecord {
  const limits: TenantLimitOverrides = {};
  if (row.limits && typeof row.limits === 'object' && !Array.isArray(row.limits)) {
    for (const [k, v] of Object.entries(row.limits)) if (typeof v === 'number') limits[k as keyof TenantLimitOverrides] = v;
  }
  return { id: row.id, name: row.name, createdAt: row.createdAt, limits };
}

/** Tenants are the platform administrator's to read and write; no tenant reads this table. */
@Injectable()
export class TenantRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async create(input: { id: string; name: string }): Promise<TenantRecord> {
    try {
      return toRecord(await this.prisma.tenant.create({ data: input, select: SELECT }));
    } catch (err) {
      translatePrismaError(err, { conflict: `a tenant named "${input.name}" already exists` });
    }
  }

  async findById(id: string): Promise<TenantRecord | null> {
    if (!isUuid(id)) return null;
    const row = await this.prisma.tenant.findUnique({ where: { id }, select: SELECT });
    return row ? toRecord(row) : null;
  }

  /** The limits set for these tenants, by id (tenants without any are absent). */
  async limitsOf(ids: string[]): Promise<Map<string, TenantLimitOverrides>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return new Map();
    const rows = await this.prisma.tenant.findMany({ where: { id: { in: valid } }, select: SELECT });
    return new Map(rows.map((r) => [r.id, toRecord(r).limits]));
  }

  /**
   * Replaces the limits the tenant has of its own with `limits` (the caller merged the change into them): a
   * limit left out takes the platform default again. The row is locked by the update, so a registration
   * checking the same tenant's quota sees either the old limits or the new ones.
   */
  async setLimits(id: string, limits: TenantLimitOverrides): Promise<TenantRecord> {
    try {
      return toRecord(await this.prisma.tenant.update({ where: { id }, data: { limits }, select: SELECT }));
    } catch (err) {
      translatePrismaError(err, { notFound: `tenant ${id} not found` });
    }
  }

  /** Oldest first, keyset-paginated on (created_at, id). */
  async list(page: PageRequest): Promise<Page<TenantRecord>> {
    const c = page.pageToken ? decodeCursor(LIST, page.pageToken) : undefined;
    const rows = await this.prisma.tenant.findMany({
      where: c ? { OR: [{ createdAt: { gt: c.at } }, { createdAt: c.at, id: { gt: c.id } }] } : {},
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.pageSize + 1,
      select: SELECT,
    });
    return toPage(rows.map(toRecord), page.pageSize, LIST, (r) => ({ at: r.createdAt, id: r.id }));
  }
}
