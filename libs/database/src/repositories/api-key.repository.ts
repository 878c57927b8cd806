import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { translatePrismaError } from '../prisma-errors';
import { PRISMA } from '../tokens';

/** A tenant API key as stored: only the sha256 of the key, never the key. */
export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  name: string | null;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const SELECT = { id: true, tenantId: true, name: true, prefix: true, createdAt: true, revokedAt: true, lastUsedAt: true } as const;

@Injectable()
export class ApiKeyRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async create(input: { id: string; tenantId: string; name: string | null; keyHash: string; prefix: string }): Promise<ApiKeyRecord> {
    try {
      return await this.prisma.apiKey.create({ data: input, select: SELECT });
    } catch (err) {
      translatePrismaError(err, { conflict: 'key collision; try again' });
    }
  }

  /** The key whose hash this is, if it exists and is not revoked. */
  async findActiveByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.prisma.apiKey.findFirst({ where: { keyHash, revokedAt: null }, select: SELECT });
  }

  async findById(id: string): Promise<ApiKeyRecord | null> {
    if (!isUuid(id)) return null;
    return this.prisma.apiKey.findUnique({ where: { id }, select: SELECT });
  }

  /** One tenant's keys, newest first. */
  async listByTenant(tenantId: string): Promise<ApiKeyRecord[]> {
    if (!isUuid(tenantId)) return [];
    return this.prisma.apiKey.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: SELECT });
  }

  /** Marks a key revoked; true when this call revoked it, false when it already was. */
  async revoke(id: string, at: Date): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
    return count === 1;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
  }
}
