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

function toRow(event: AuditEventInput): Prisma.AuditEventCreateManyInput {
  return {
    id: randomUUID(),
    ...(event.at ? { at: event.at } : {}),
    actorType: event.actorType,
    actorId: event.actorId,
    tenantId: event.tenantId,
    action: event.action,
    resourceType: event.resourceType,
    resourceId: event.resourceId,
    outcome: event.outcome ?? 'ok',
    durationMs: event.durationMs,
    detail: (event.detail ?? {}) as Prisma.InputJsonValue,
  };
}

@Injectable()
export class AuditRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL) private readonly sql: Sql,
  ) {}

  async record(event: AuditEventInput): Promise<void> {
    // Every change through the API writes one: a plain statement.
    await this.sql.query(
      `INSERT INTO audit_events (id, at, actor_type, actor_id, tenant_id, action, resource_type, resource_id, outcome, duration_ms, detail)
       VALUES ($1::uuid, COALESCE($2::timestamptz, now()), $3, $4, $5::uuid, $6, $7, $8, $9, $10, $11::jsonb)`,
      [
        randomUUID(),
        event.at ?? null,
        event.actorType,
        event.actorId,
        event.tenantId,
        event.action,
        event.resourceType,
        event.resourceId,
        event.outcome ?? 'ok',
        event.durationMs ?? null,
        JSON.stringify(event.detail ?? {}),
      ],
    );
  }

  /** Several events in one statement: a busy path (tool calls) writes its records in batches. */
  async recordMany(events: AuditEventInput[]): Promise<void> {
    if (events.length === 0) return;
    await this.prisma.auditEvent.createMany({ data: events.map(toRow) });
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
