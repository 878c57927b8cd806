import { CredentialsCipher } from '@app/credentials';
import { DEFAULT_PAGE_SIZE, WebhookDeliveryRecord, WebhookDeliveryRepository, WebhookRecord, WebhookRepository } from '@app/database';
import { ConflictError, InvalidInputError, NotFoundError, Principal, timeOrderedUuid } from '@app/domain';
import { assertOutboundAllowed, OutboundPolicy } from '@app/mcp';
import { generateWebhookSecret, sealWebhookSecret } from '@app/webhooks';
import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  DeliveriesQueryDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookPageDto,
  WebhookSecretDto,
} from './webhook.dto';
import { PageQueryDto } from '../common/page.dto';

/** Webhooks one owner (a tenant, or the administrator) may hold. */
export const MAX_WEBHOOKS_PER_OWNER = 50;

const iso = (d: Date | null) => d?.toISOString() ?? null;

function toDto(w: WebhookRecord): WebhookDto {
  return {
    ...w,
    disabledAt: iso(w.disabledAt),
    failingSince: iso(w.failingSince),
    lastSuccessAt: iso(w.lastSuccessAt),
    lastFailureAt: iso(w.lastFailureAt),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

function toDeliveryDto({ attempts, attemptLog, nextAttemptAt, deliveredAt, createdAt, webhookId: _, ...d }: WebhookDeliveryRecord): WebhookDeliveryDto {
  return {
    ...d,
    attemptCount: attempts,
    nextAttemptAt: d.status === 'pending' ? iso(nextAttemptAt) : null,
    deliveredAt: iso(deliveredAt),
    createdAt: createdAt.toISOString(),
    attempts: attemptLog.map((a) => ({ ...a, at: a.at.toISOString() })),
  };
}

/**
 * Webhooks: a tenant's deliver its own servers' events, the administrator's every server's. The signing secret is
 * made here, shown once in the answer that made it, and stored sealed; nothing else ever returns it.
 */
@Injectable()
export class WebhookService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly outbound: OutboundPolicy,
    private readonly cipher: CredentialsCipher,
    private readonly audit: AuditService,
  ) {}

  private ownerOf(principal: Principal): string | null {
    return principal.type === 'tenant' ? principal.tenantId : null;
  }

  /** Every server id must be one whose events the owner may hear of: 400 naming the first that is not (never saying whether it exists). */
  private async checkServers(owner: string | null, ids: string[] | undefined): Promise<void> {
    if (!ids || ids.length === 0) return;
    const known = await this.webhooks.serversOf(owner, ids);
    const i = ids.findIndex((id) => !known.has(id));
    if (i < 0) return;
    const message = owner === null ? 'no such server' : 'no such server of this tenant';
    throw new InvalidInputError(`serverIds[${i}]: ${message}`, [{ field: `serverIds[${i}]`, message }]);
  }

  private async find(principal: Principal, id: string): Promise<WebhookRecord> {
    const w = await this.webhooks.find(principal, id);
    if (!w) throw new NotFoundError(`webhook ${id} not found`);
    return w;
  }

  async create(principal: Principal, dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    const owner = this.ownerOf(principal);
    await assertOutboundAllowed(this.outbound, dto.url, 'url');
    await this.checkServers(owner, dto.serverIds);
    if ((await this.webhooks.countOwnedBy(owner)) >= MAX_WEBHOOKS_PER_OWNER) {
      throw new ConflictError(`${owner === null ? 'the administrator' : 'a tenant'} may hold at most ${MAX_WEBHOOKS_PER_OWNER} webhooks; delete one first`);
    }
    const id = timeOrderedUuid();
    const secret = generateWebhookSecret();
    const w = await this.webhooks.create({
      id,
      tenantId: owner,
      url: dto.url,
      description: dto.description ?? null,
      events: dto.events,
      serverIds: dto.serverIds ?? [],
      secretCipher: sealWebhookSecret(this.cipher, id, secret),
    });
    await this.audit.record(principal, { action: 'webhook.create', resourceType: 'webhook', resourceId: id, tenantId: owner, detail: { host: new URL(w.url).host, events: w.events } });
    return { ...toDto(w), secret };
  }

  async list(principal: Principal, query: PageQueryDto): Promise<WebhookPageDto> {
    const page = await this.webhooks.list(principal, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { webhooks: page.items.map(toDto), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }

  async get(principal: Principal, id: string): Promise<WebhookDto> {
    return toDto(await this.find(principal, id));
  }

  async update(principal: Principal, id: string, dto: UpdateWebhookDto): Promise<WebhookDto> {
    const current = await this.find(principal, id);
    if (dto.url !== undefined) await assertOutboundAllowed(this.outbound, dto.url, 'url');
    await this.checkServers(current.tenantId, dto.serverIds);
    const w = await this.webhooks.update(principal, current.id, dto);
    if (!w) throw new NotFoundError(`webhook ${id} not found`);
    const fields = Object.keys(dto).filter((k) => (dto as Record<string, unknown>)[k] !== undefined);
    await this.audit.record(principal, { action: 'webhook.update', resourceType: 'webhook', resourceId: w.id, tenantId: w.tenantId, detail: { fields, enabled: w.enabled } });
    return toDto(w);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const current = await this.find(principal, id);
    if (!(await this.webhooks.delete(principal, current.id))) throw new NotFoundError(`webhook ${id} not found`);
    await this.audit.record(principal, { action: 'webhook.delete', resourceType: 'webhook', resourceId: current.id, tenantId: current.tenantId });
  }

  /** A new signing secret, shown once; the old one stops signing at once. */
  async rotateSecret(principal: Principal, id: string): Promise<WebhookSecretDto> {
    const current = await this.find(principal, id);
    const secret = generateWebhookSecret();
    if (!(await this.webhooks.setSecret(principal, current.id, sealWebhookSecret(this.cipher, current.id, secret)))) throw new NotFoundError(`webhook ${id} not found`);
    await this.audit.record(principal, { action: 'webhook.rotate-secret', resourceType: 'webhook', resourceId: current.id, tenantId: current.tenantId });
    return { id: current.id, secret };
  }

  async listDeliveries(principal: Principal, id: string, query: DeliveriesQueryDto): Promise<WebhookDeliveryPageDto> {
    const w = await this.find(principal, id);
    const page = await this.deliveries.listByWebhook(w.id, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken }, query.status);
    return { deliveries: page.items.map(toDeliveryDto), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }
}
