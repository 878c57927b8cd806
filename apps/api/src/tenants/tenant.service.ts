import { DEFAULT_PAGE_SIZE, TenantRecord, TenantRepository } from '@app/database';
import { Principal } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditService } from '../audit/audit.service';
import { PageQueryDto } from '../common/page.dto';
import { CreateTenantDto, TenantDto, TenantPageDto } from './tenant.dto';

function toDto(t: TenantRecord): TenantDto {
  return { id: t.id, name: t.name, createdAt: t.createdAt.toISOString() };
}

@Injectable()
export class TenantService {
  constructor(
    private readonly tenants: TenantRepository,
    private readonly audit: AuditService,
  ) {}

  async create(principal: Principal, input: CreateTenantDto): Promise<TenantDto> {
    const tenant = await this.tenants.create({ id: randomUUID(), name: input.name.trim() });
    await this.audit.record(principal, { action: 'tenant.create', resourceType: 'tenant', resourceId: tenant.id, tenantId: tenant.id, detail: { name: tenant.name } });
    return toDto(tenant);
  }

  async list(query: PageQueryDto): Promise<TenantPageDto> {
    const page = await this.tenants.list({ pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { tenants: page.items.map(toDto), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }
}
