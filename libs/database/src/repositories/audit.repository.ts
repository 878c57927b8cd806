import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { decodeCursor, Page, PageRequest, toPage } from '../page';
import { Sql } from '../sql';
import { PRISMA, SQL } from '../tokens';

export type AuditActorType = 'admin' | 'tenant' | 'system';

/** Who did what to which resource, and when. The detail never holds a secret. */
export interface AuditEventInput {
  actorType: AuditActorType;
  /** The API key id ('admin' for the admin key), or the start-up source for 'system'. */
  actorId: string | null;
  /** The tenant the change concerns (the actor's, or the owner of the resource). */
  tenantId: string | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  outcome?: string;
  durationMs?: number;
  detail?: Record<string, unknown>;
  /** When it happened, for events written later in a batch; the time of the write otherwise. */
  at?: Date;
}

export interface AuditEventRecord extends Required<Omit<AuditEventInput, 'durationMs'>> {
  id: string;
  at: Date;
  durationMs: number | null;
}

export interface AuditFilter {
  tenantId?: string;
  action?: string;
  resourceId?: string;
}

const LIST = 'audit';

/** Only the events whose resource is among the rows a change touched: `column` of the statement's `from` (a CTE). */
export interface AuditCondition {
  from: string;
  column: string;
}

/**
 * Writes audit events in the transaction of the change they record (a Prisma interactive transaction): both are
 * committed or neither.
 */
export async function recordAuditIn(tx: Prisma.TransactionClient, events: AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const insert = auditInsert(events, 1);
  await tx.$executeRawUnsafe(insert.text, ...insert.values);
}

/**
 * The statement that writes audit events, one array per column, with its parameters numbered from `first`:
 * on its own, or as part of the statement that makes the change it records (so that both are written or neither).
 */
export function auditInsert(events: AuditEventInput[], first: number, only?: AuditCondition): { text: string; values: unknown[] } {
  const $ = (n: number) => `$${first + n}`;
  const where = only ? `\n       WHERE e.resource_id IN (SELECT ${only.column}::text FROM ${only.from})` : '';
  return {
    text: `INSERT INTO audit_events (id, at, actor_type, actor_id, tenant_id, action, resource_type, resource_id, outcome, duration_ms, detail)
       SELECT id, COALESCE(at, now()), actor_type, actor_id, tenant_id, action, resource_type, resource_id, outcome, duration_ms, detail
       FROM unnest(${$(0)}::uuid[], ${$(1)}::timestamptz[], ${$(2)}::text[], ${$(3)}::text[], ${$(4)}::uuid[], ${$(5)}::text[], ${$(6)}::text[],
                   ${$(7)}::text[], ${$(8)}::text[], ${$(9)}::int[], ${$(10)}::jsonb[])
         AS e(id, at, actor_type, actor_id, tenant_id, action, resource_type, resource_id, outcome, duration_ms, detail)${where}`,
    values: [
      events.map(() => randomUUID()),
      events.map((e) => e.at ?? null),
      events.map((e) => e.actorType),
      events.map((e) => e.actorId),
      events.map((e) => e.tenantId),
      events.map((e) => e.action),
      events.map((e) => e.resourceType),
      events.map((e) => e.resourceId),
      events.map((e) => e.outcome ?? 'ok'),
      events.map((e) => (e.durationMs === undefined ? null : Math.round(e.durationMs))),
      events.map((e) => JSON.stringify(e.detail ?? {})),
    ],
  };
}

@Injectable()
export class AuditRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL) private readonly sql: Sql,
  ) {}

  async record(event: AuditEventInput): Promise<void> {
    await this.recordMany([event]);
  }

  /** Several events in one statement: a busy path (tool calls) writes its records together. */
  async recordMany(events: AuditEventInput[]): Promise<void> {
    if (events.length === 0) return;
    const insert = auditInsert(events, 1);
    await this.sql.query(insert.text, insert.values);
  }

  /** Newest first, keyset-paginated on (at, id). The audit log is the admin's only. */
  async list(filter: AuditFilter, page: PageRequest): Promise<Page<AuditEventRecord>> {
    const and: Prisma.AuditEventWhereInput[] = [];
    if (filter.tenantId) and.push({ tenantId: filter.tenantId });
    if (filter.action) and.push({ action: filter.action });
    if (filter.resourceId) and.push({ resourceId: filter.resourceId });
    if (page.pageToken) {
      const c = decodeCursor(LIST, page.pageToken);
      and.push({ OR: [{ at: { lt: c.at } }, { at: c.at, id: { lt: c.id } }] });
    }
    const rows = await this.prisma.auditEvent.findMany({
      where: { AND: and },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take: page.pageSize + 1,
    });
    const events = rows.map(
      (r): AuditEventRecord => ({
        id: r.id,
        at: r.at,
        actorType: r.actorType as AuditActorType,
        actorId: r.actorId,
        tenantId: r.tenantId,
        action: r.action,
        resourceType: r.resourceType,
        resourceId: r.resourceId,
        outcome: r.outcome,
        durationMs: r.durationMs,
        detail: r.detail && typeof r.detail === 'object' && !Array.isArray(r.detail) ? (r.detail as Record<string, unknown>) : {},
      }),
    );
    return toPage(events, page.pageSize, LIST, (r) => ({ at: r.at, id: r.id }));
  }
}
