import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { ReadScope } from '../scope';
import { PRISMA } from '../tokens';
import type { ServerEventType } from './server-events';

/** A webhook as stored, without its secret. */
export interface WebhookRecord {
  id: string;
  /** null: the administrator's (every server's events). */
  tenantId: string | null;
  url: string;
  description: string | null;
  events: ServerEventType[];
  serverIds: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  consecutiveFailures: number;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type WebhookCreate = Pick<WebhookRecord, 'id' | 'tenantId' | 'url' | 'description' | 'events' | 'serverIds'> & { secretCipher: string };

export interface WebhookChange {
  url?: string;
  description?: string | null;
  events?: ServerEventType[];
  serverIds?: string[];
  enabled?: boolean;
}

const SELECT = {
  id: true,
  tenantId: true,
  url: true,
  description: true,
  events: true,
  serverIds: true,
  enabled: true,
  disabledReason: true,
  disabledAt: true,
  consecutiveFailures: true,
  failingSince: true,
  lastSuccessAt: true,
  lastFailureAt: true,
  createdAt: true,
  updatedAt: true,
} as const;

const LIST = 'webhooks';

/** The webhooks a scope owns: a tenant its own, the administrator every one. */
function owned(scope: ReadScope): Prisma.WebhookWhereInput {
  return scope.type === 'admin' ? {} : { tenantId: scope.tenantId };
}

function toRecord(row: Prisma.WebhookGetPayload<{ select: typeof SELECT }>): WebhookRecord {
  return { ...row, events: row.events as ServerEventType[] };
}

/** Webhook subscriptions. Every read and write takes the caller's scope: a tenant never reaches another's. */
@Injectable()
export class WebhookRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async create(input: WebhookCreate): Promise<WebhookRecord> {
    return toRecord(await this.prisma.webhook.create({ data: input, select: SELECT }));
  }

  async countOwnedBy(tenantId: string | null): Promise<number> {
    return this.prisma.webhook.count({ where: { tenantId } });
  }

  async find(scope: ReadScope, id: string): Promise<WebhookRecord | null> {
    if (!isUuid(id)) return null;
    const row = await this.prisma.webhook.findFirst({ where: { id, ...owned(scope) }, select: SELECT });
    return row ? toRecord(row) : null;
  }

  /** Oldest first, keyset-paginated on (created_at, id). */
  async list(scope: ReadScope, page: PageRequest): Promise<Page<WebhookRecord>> {
    const c = page.pageToken ? decodeCursor(LIST, page.pageToken) : undefined;
    const rows = await this.prisma.webhook.findMany({
      where: { ...owned(scope), ...(c ? { OR: [{ createdAt: { gt: c.at } }, { createdAt: c.at, id: { gt: c.id } }] } : {}) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.pageSize + 1,
      select: SELECT,
    });
    return toPage(rows.map(toRecord), page.pageSize, LIST, (r) => ({ at: r.createdAt, id: r.id }));
  }

  /**
   * Changes a webhook. Enabling one that was disabled starts it afresh: no reason, no failures counted. Disabling
   * one by hand leaves its pending deliveries to be cancelled as their attempts come up.
   */
  async update(scope: ReadScope, id: string, change: WebhookChange): Promise<WebhookRecord | null> {
    const current = await this.find(scope, id);
    if (!current) return null;
    const data: Prisma.WebhookUpdateInput = { ...change, updatedAt: new Date() };
    if (change.enabled === true && !current.enabled) Object.assign(data, { disabledReason: null, disabledAt: null, consecutiveFailures: 0, failingSince: null });
    if (change.enabled === false && current.enabled) Object.assign(data, { disabledReason: 'disabled by its owner', disabledAt: new Date() });
    return toRecord(await this.prisma.webhook.update({ where: { id: current.id }, data, select: SELECT }));
  }

  async setSecret(scope: ReadScope, id: string, secretCipher: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const { count } = await this.prisma.webhook.updateMany({ where: { id, ...owned(scope) }, data: { secretCipher, updatedAt: new Date() } });
    return count > 0;
  }

  async delete(scope: ReadScope, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const { count } = await this.prisma.webhook.deleteMany({ where: { id, ...owned(scope) } });
    return count > 0;
  }

  /** Of these server ids, those whose events an owner's webhook may carry: a tenant's own servers; for the administrator, any server. */
  async serversOf(tenantId: string | null, ids: string[]): Promise<Set<string>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return new Set();
    const rows = await this.prisma.server.findMany({ where: { id: { in: valid }, ...(tenantId === null ? {} : { tenantId }) }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }
}
