import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { translatePrismaError } from '../prisma-errors';
import { PRISMA } from '../tokens';

export interface CatalogSourceRecord {
  id: string;
  baseUrl: string;
  intervalSeconds: number;
  lastSyncAt: Date | null;
  lastSuccessAt: Date | null;
  lastOutcome: string | null;
  lastReason: string | null;
  cursorUpdatedSince: Date | null;
  createdAt: Date;
}

/** Upstream Registry APIs the platform's catalog is synced from: the administrator's. */
@Injectable()
export class CatalogSourceRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async create(input: { id: string; baseUrl: string; intervalSeconds: number }): Promise<CatalogSourceRecord> {
    try {
      return await this.prisma.catalogSource.create({ data: input });
    } catch (err) {
      translatePrismaError(err, { conflict: `a catalog source for ${input.baseUrl} already exists` });
    }
  }

  list(): Promise<CatalogSourceRecord[]> {
    return this.prisma.catalogSource.findMany({ orderBy: { createdAt: 'asc' }, take: 500 });
  }

  findById(id: string): Promise<CatalogSourceRecord | null> {
    return isUuid(id) ? this.prisma.catalogSource.findUnique({ where: { id } }) : Promise.resolve(null);
  }

  /** Deletes the source; its entries stay in the catalog (their source_id becomes null). */
  async delete(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const { count } = await this.prisma.catalogSource.deleteMany({ where: { id } });
    return count > 0;
  }

  async recordFailure(id: string, reason: string): Promise<void> {
    await this.prisma.catalogSource.updateMany({ where: { id }, data: { lastSyncAt: new Date(), lastOutcome: 'failed', lastReason: reason.slice(0, 500) } });
  }

  async recordSuccess(id: string, summary: string, cursor: Date | null): Promise<void> {
    const now = new Date();
    await this.prisma.catalogSource.updateMany({
      where: { id },
      data: { lastSyncAt: now, lastSuccessAt: now, lastOutcome: 'succeeded', lastReason: summary.slice(0, 500), ...(cursor ? { cursorUpdatedSince: cursor } : {}) },
    });
  }
}
