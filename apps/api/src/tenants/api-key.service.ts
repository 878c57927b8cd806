import { ApiKeyRecord, ApiKeyRepository, TenantRepository } from '@app/database';
import { NotFoundError, Principal } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditService } from '../audit/audit.service';
import { generateApiKey, hashApiKey, keyPrefix } from '../auth/api-key.secret';
import { AuthService } from '../auth/auth.service';
import { ApiKeyDto, ApiKeyListDto, CreateApiKeyDto, CreatedApiKeyDto } from './tenant.dto';

/** The key's record (it holds no hash: the repository never reads it) with its dates as ISO 8601. */
function toDto(k: ApiKeyRecord): ApiKeyDto {
  return { ...k, createdAt: k.createdAt.toISOString(), revokedAt: k.revokedAt?.toISOString() ?? null, lastUsedAt: k.lastUsedAt?.toISOString() ?? null };
}

/** Tenant API keys: made by the administrator, shown once, stored as a hash, revocable. */
@Injectable()
export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly tenants: TenantRepository,
    private readonly auth: AuthService,
    private readonly audit: AuditService,
  ) {}

  async create(principal: Principal, tenantId: string, input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const tenant = await this.tenants.findById(tenantId);
    if (!tenant) throw new NotFoundError(`tenant ${tenantId} not found`);
    const key = generateApiKey();
    const record = await this.keys.create({ id: randomUUID(), tenantId: tenant.id, name: input.name ?? null, keyHash: hashApiKey(key), prefix: keyPrefix(key) });
    await this.audit.record(principal, { action: 'api-key.create', resourceType: 'api-key', resourceId: record.id, tenantId: tenant.id, detail: { name: record.name, prefix: record.prefix } });
    return { id: record.id, key, tenantId: record.tenantId, name: record.name, createdAt: record.createdAt.toISOString() };
  }

  async list(tenantId: string): Promise<ApiKeyListDto> {
    const tenant = await this.tenants.findById(tenantId);
    if (!tenant) throw new NotFoundError(`tenant ${tenantId} not found`);
    return { apiKeys: (await this.keys.listByTenant(tenant.id)).map(toDto) };
  }

  /** Revokes a key; revoking one that already is revoked is a no-op. It stops working in this process at once. */
  async revoke(principal: Principal, id: string): Promise<void> {
    const key = await this.keys.findById(id);
    if (!key) throw new NotFoundError(`API key ${id} not found`);
    const revoked = await this.keys.revoke(key.id, new Date());
    this.auth.forget(key.id);
    if (revoked) {
      await this.audit.record(principal, { action: 'api-key.revoke', resourceType: 'api-key', resourceId: key.id, tenantId: key.tenantId, detail: { prefix: key.prefix } });
    }
  }
}
