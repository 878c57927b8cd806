import { APP_CONFIG, AppConfig, TenantLimits } from '@app/config';
import { DEFAULT_PAGE_SIZE, TenantLimitOverrides, TenantRecord, TenantRepository } from '@app/database';
import { NotFoundError, Principal } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditService } from '../audit/audit.service';
import { PageQueryDto } from '../common/page.dto';
import { CreateTenantDto, TenantDto, TenantPageDto, UpdateTenantDto } from './tenant.dto';
import { TenantLimitsService } from './tenant-limits.service';

const LIMIT_NAMES: (keyof TenantLimits)[] = ['maxServers', 'maxTools', 'maxCallsInFlight', 'toolResultMaxBytes', 'maxResultBytesInFlight'];

@Injectable()
export class TenantService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tenants: TenantRepository,
    private readonly limits: TenantLimitsService,
    private readonly audit: AuditService,
  ) {}

  private toDto(t: TenantRecord): TenantDto {
    return { id: t.id, name: t.name, createdAt: t.createdAt.toISOString(), limits: { ...this.config.tenantLimits, ...t.limits }, customLimits: { ...t.limits } };
  }

  async create(principal: Principal, input: CreateTenantDto): Promise<TenantDto> {
    const tenant = await this.tenants.create({ id: randomUUID(), name: input.name.trim() });
    await this.audit.record(principal, { action: 'tenant.create', resourceType: 'tenant', resourceId: tenant.id, tenantId: tenant.id, detail: { name: tenant.name } });
    return this.toDto(tenant);
  }

  async get(id: string): Promise<TenantDto> {
    const tenant = await this.tenants.findById(id);
    if (!tenant) throw new NotFoundError(`tenant ${id} not found`);
    return this.toDto(tenant);
  }

  /** Sets or clears the tenant's own limits; audited with the values before and after. */
  async update(principal: Principal, id: string, input: UpdateTenantDto): Promise<TenantDto> {
    const tenant = await this.tenants.findById(id);
    if (!tenant) throw new NotFoundError(`tenant ${id} not found`);
    const change = input.limits ?? {};
    const given = LIMIT_NAMES.filter((k) => change[k] !== undefined);
    if (given.length === 0) return this.toDto(tenant);
    const next: TenantLimitOverrides = { ...tenant.limits };
    for (const k of given) {
      const v = change[k];
      if (v === null) delete next[k];
      else next[k] = v;
    }
    const updated = await this.tenants.setLimits(tenant.id, next);
    this.limits.forget(tenant.id);
    await this.audit.record(principal, {
      action: 'tenant.limits',
      resourceType: 'tenant',
      resourceId: tenant.id,
      tenantId: tenant.id,
      detail: { name: tenant.name, before: tenant.limits, after: updated.limits },
    });
    return this.toDto(updated);
  }

  async list(query: PageQueryDto): Promise<TenantPageDto> {
    const page = await this.tenants.list({ pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { tenants: page.items.map((t) => this.toDto(t)), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }
}
