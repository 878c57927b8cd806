import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { translatePrismaError } from '../prisma-errors';
import { PRISMA } from '../tokens';

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: Date;
}

const LIST = 'tenants';

/** Tenants are the platform administrator's to read and write; no tenant reads this table. */
@Injectable()
export class TenantRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async create(input: { id: string; name: string }): Promise<TenantRecord> {
    try {
      return await this.prisma.tenant.create({ data: input, select: { id: true, name: true, createdAt: true } });
    } catch (err) {
      translatePrismaError(err, { conflict: `a tenant named "${input.name}" already exists` });
    }
  }

  async findById(id: string): Promise<TenantRecord | null> {
    if (!isUuid(id)) return null;
    return this.prisma.tenant.findUnique({ where: { id }, select: { id: true, name: true, createdAt: true } });
  }

  /** Oldest first, keyset-paginated on (created_at, id). */
  async list(page: PageRequest): Promise<Page<TenantRecord>> {
    const c = page.pageToken ? decodeCursor(LIST, page.pageToken) : undefined;
    const rows = await this.prisma.tenant.findMany({
      where: c ? { OR: [{ createdAt: { gt: c.at } }, { createdAt: c.at, id: { gt: c.id } }] } : {},
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.pageSize + 1,
      select: { id: true, name: true, createdAt: true },
    });
    return toPage(rows, page.pageSize, LIST, (r) => ({ at: r.createdAt, id: r.id }));
  }
}
