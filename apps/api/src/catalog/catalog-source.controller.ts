import { CatalogSourceRecord, CatalogSourceRepository } from '@app/database';
import { NotFoundError, Principal, timeOrderedUuid } from '@app/domain';
import { assertOutboundAllowed, OutboundPolicy } from '@app/mcp';
import { DiscoveryProducer } from '@app/queue';
import { Body, Controller, Delete, Get, Injectable, Post } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { AdminOnly, CurrentPrincipal } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { IdParam } from '../common/ids';
import { IsHttpUrl } from '../common/validators';
import { ApiJsonBody } from '../common/api-examples';
import { AuditService } from '../audit/audit.service';

export class CreateCatalogSourceDto {
  @ApiProperty({ description: 'The base URL of a Registry API (its /v0.1/servers is read)', example: 'https://registry.modelcontextprotocol.io' })
  @IsHttpUrl()
  baseUrl!: string;

  @ApiPropertyOptional({ description: 'Seconds between syncs (300 to 604800, default 3600)', minimum: 300, maximum: 604800, example: 3600 })
  @IsOptional()
  @IsInt()
  @Min(300)
  @Max(604800)
  intervalSeconds?: number;
}

export class CatalogSourceDto {
  @ApiProperty() id!: string;
  @ApiProperty() baseUrl!: string;
  @ApiProperty() intervalSeconds!: number;
  @ApiProperty({ type: String, nullable: true, description: 'When the last sync ended' }) lastSyncAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'When a sync last succeeded' }) lastSuccessAt!: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['succeeded', 'failed'], description: 'How the last sync ended (null before the first)' }) lastOutcome!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed, or what it changed' }) lastReason!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The next sync asks for what changed after this' }) updatedSince!: string | null;
  @ApiProperty() createdAt!: string;
}

export class CatalogSourceListDto {
  @ApiProperty({ type: [CatalogSourceDto] }) sources!: CatalogSourceDto[];
}

const iso = (d: Date | null) => d?.toISOString() ?? null;
function toDto(s: CatalogSourceRecord): CatalogSourceDto {
  return {
    id: s.id,
    baseUrl: s.baseUrl,
    intervalSeconds: s.intervalSeconds,
    lastSyncAt: iso(s.lastSyncAt),
    lastSuccessAt: iso(s.lastSuccessAt),
    lastOutcome: s.lastOutcome,
    lastReason: s.lastReason,
    updatedSince: iso(s.cursorUpdatedSince),
    createdAt: s.createdAt.toISOString(),
  };
}

const SOURCE_EXAMPLE = {
  id: '0193a5b2-7c1e-7d3a-9f40-5e6d7c8b9a30',
  baseUrl: 'https://registry.modelcontextprotocol.io',
  intervalSeconds: 3600,
  lastSyncAt: '2026-12-01T10:00:09.000Z',
  lastSuccessAt: '2026-12-01T10:00:09.000Z',
  lastOutcome: 'succeeded',
  lastReason: '12 pages, 1130 added, 0 updated, 0 deleted, 4 refused by the schema, 0 duplicates dropped, 0 servers disabled',
  updatedSince: '2026-12-01T09:58:00.000Z',
  createdAt: '2026-12-01T10:00:00.000Z',
};

@Injectable()
export class CatalogSourceService {
  constructor(
    private readonly sources: CatalogSourceRepository,
    private readonly producer: DiscoveryProducer,
    private readonly outbound: OutboundPolicy,
    private readonly audit: AuditService,
  ) {}

  async create(principal: Principal, dto: CreateCatalogSourceDto): Promise<CatalogSourceDto> {
    await assertOutboundAllowed(this.outbound, dto.baseUrl, 'baseUrl');
    const source = await this.sources.create({ id: timeOrderedUuid(), baseUrl: dto.baseUrl.replace(/\/+$/, ''), intervalSeconds: dto.intervalSeconds ?? 3600 });
    await this.producer.scheduleCatalogSync(source.id, source.intervalSeconds * 1000);
    await this.audit.record(principal, { action: 'catalog-source.create', resourceType: 'catalog-source', resourceId: source.id, tenantId: null, detail: { baseUrl: source.baseUrl } });
    return toDto(source);
  }

  async list(): Promise<CatalogSourceListDto> {
    return { sources: (await this.sources.list()).map(toDto) };
  }

  /** Queues one sync now; the source answers as it is (its lastSyncAt moves when the sync ends). */
  async syncNow(principal: Principal, id: string): Promise<CatalogSourceDto> {
    const source = await this.sources.findById(id);
    if (!source) throw new NotFoundError(`catalog source ${id} not found`);
    await this.producer.requestCatalogSync(source.id);
    await this.audit.record(principal, { action: 'catalog-source.sync', resourceType: 'catalog-source', resourceId: source.id, tenantId: null });
    return toDto(source);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    if (!(await this.sources.delete(id))) throw new NotFoundError(`catalog source ${id} not found`);
    await this.producer.unscheduleCatalogSync(id);
    await this.audit.record(principal, { action: 'catalog-source.delete', resourceType: 'catalog-source', resourceId: id, tenantId: null });
  }
}

@ApiTags('catalog')
@ApiAuthenticated()
@AdminOnly()
@Controller('api/v1/catalog/sources')
export class CatalogSourceController {
  constructor(private readonly sources: CatalogSourceService) {}

  @Post()
  @ApiEndpoint({
    summary: 'Sync the platform catalog from an upstream Registry API (admin only): now, then every intervalSeconds',
    description:
      'A worker reads /v0.1/servers page by page, then only what changed (updated_since); mirrors each entry\'s status (a deleted entry leaves ' +
      'the catalog and the BUILT_IN servers made from it are disabled); bounded in pages, entries, bytes and time; the URL must pass the ' +
      'outbound address policy. A failed sync keeps the last good catalog and says why in lastReason.',
    created: { type: CatalogSourceDto, example: { ...SOURCE_EXAMPLE, lastSyncAt: null, lastSuccessAt: null, lastOutcome: null, lastReason: null, updatedSince: null } },
    problems: [400, 403, 409],
  })
  @ApiJsonBody(CreateCatalogSourceDto, { official: { summary: 'The official MCP Registry, hourly', value: { baseUrl: 'https://registry.modelcontextprotocol.io', intervalSeconds: 3600 } } })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateCatalogSourceDto): Promise<CatalogSourceDto> {
    return this.sources.create(principal, body);
  }

  @Get()
  @ApiEndpoint({
    summary: 'The catalog sources, with their last sync, outcome and reason (admin only)',
    ok: { type: CatalogSourceListDto, example: { sources: [SOURCE_EXAMPLE] } },
    problems: [403],
  })
  list(): Promise<CatalogSourceListDto> {
    return this.sources.list();
  }

  @Post(':id/sync')
  @ApiEndpoint({
    summary: 'Sync a source now, beside its schedule (admin only)',
    description: 'Answers 202 with the source as it is; its lastSyncAt, lastOutcome and lastReason change when the worker has read the upstream.',
    accepted: { type: CatalogSourceDto, example: SOURCE_EXAMPLE },
    problems: [403, 404, 503],
  })
  syncNow(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the catalog source') id: string): Promise<CatalogSourceDto> {
    return this.sources.syncNow(principal, id);
  }

  @Delete(':id')
  @ApiEndpoint({ summary: 'Stop syncing a source (admin only); the entries it brought stay in the catalog', noContent: 'Deleted', problems: [403, 404] })
  delete(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the catalog source') id: string): Promise<void> {
    return this.sources.delete(principal, id);
  }
}
