import { AuditEventInput, AuditFilter, AuditRepository, DEFAULT_PAGE_SIZE } from '@app/database';
import { Principal } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { AuditPageDto, AuditQueryDto } from './audit.dto';

/** Who acted: a caller of the API, or the platform itself at start (with what drove it). */
export type AuditActor = Principal | { type: 'system'; source: string };

export interface AuditEntry {
  action: string;
  resourceType: 'tenant' | 'api-key' | 'server' | 'catalog' | 'catalog-source' | 'virtual-server' | 'webhook';
  resourceId: string;
  /** The tenant the resource belongs to (null for the platform's). */
  tenantId: string | null;
  /** Names and labels only, never a credential value. */
  detail?: Record<string, unknown>;
}

/** The audit log: one record per change, readable by the administrator. */
@Injectable()
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  async record(actor: AuditActor, entry: AuditEntry): Promise<void> {
    await this.audit.record(eventOf(actor, entry));
  }

  /** The events of some entries by one actor, for a repository that writes them with the change they record. */
  eventsOf(actor: AuditActor, entries: AuditEntry[]): AuditEventInput[] {
    return entries.map((entry) => eventOf(actor, entry));
  }

  async list(query: AuditQueryDto): Promise<AuditPageDto> {
    const filter: AuditFilter = { tenantId: query.tenantId, action: query.action, resourceId: query.resourceId };
    const page = await this.audit.list(filter, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return {
      events: page.items.map((e) => ({ ...e, at: e.at.toISOString() })),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    };
  }
}

function eventOf(actor: AuditActor, entry: AuditEntry): AuditEventInput {
  return {
    actorType: actor.type,
    actorId: actor.type === 'system' ? actor.source : actor.keyId,
    tenantId: entry.tenantId ?? (actor.type === 'tenant' ? actor.tenantId : null),
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    detail: entry.detail,
  };
}
