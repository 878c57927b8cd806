import { Principal } from '@app/domain';
import { Body, Controller, Delete, Get, Patch, Post, Query } from '@nestjs/common';
import { EXAMPLE_IDS } from '../common/api-examples';
import { IdParam } from '../common/ids';
import { ApiTags } from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { PageQueryDto } from '../common/page.dto';
import { ApiKeyService } from './api-key.service';
import { ApiKeyListDto, CreateApiKeyDto, CreatedApiKeyDto, CreateTenantDto, TenantDto, TenantPageDto, UpdateTenantDto } from './tenant.dto';
import { TenantService } from './tenant.service';
import { API_KEY_EXAMPLE, ApiJsonBody, CREATED_KEY_EXAMPLE, PAGE_TOKEN_EXAMPLE, TENANT_EXAMPLE } from '../common/api-examples';

/** The `tenantId` path parameter: a tenant's id. */
const TenantIdParam = (): ParameterDecorator => IdParam('tenantId', 'the tenant', EXAMPLE_IDS.tenant);

@ApiTags('tenants')
@ApiAuthenticated()
@AdminOnly()
@Controller('api/v1')
export class TenantController {
  constructor(
    private readonly tenants: TenantService,
    private readonly keys: ApiKeyService,
  ) {}

  @Post('tenants')
  @ApiEndpoint({
    summary: 'Create a tenant (admin only)',
    created: { type: TenantDto, example: { ...TENANT_EXAMPLE, limits: { ...TENANT_EXAMPLE.limits, maxServers: 200 }, customLimits: {} } },
    problems: [400, 403, 409],
  })
  @ApiJsonBody(CreateTenantDto, { tenant: { summary: 'A tenant named acme', value: { name: 'acme' } } })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTenantDto): Promise<TenantDto> {
    return this.tenants.create(principal, body);
  }

  @Get('tenants')
  @ApiEndpoint({
    summary: 'List tenants, oldest first (admin only)',
    ok: { type: TenantPageDto, example: { tenants: [TENANT_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } },
    problems: [400, 403],
  })
  list(@Query() query: PageQueryDto): Promise<TenantPageDto> {
    return this.tenants.list(query);
  }

  @Get('tenants/:tenantId')
  @ApiEndpoint({ summary: 'One tenant, with the limits that apply to it (admin only)', ok: { type: TenantDto, example: TENANT_EXAMPLE }, problems: [403, 404] })
  get(@TenantIdParam() tenantId: string): Promise<TenantDto> {
    return this.tenants.get(tenantId);
  }

  @Patch('tenants/:tenantId')
  @ApiEndpoint({
    summary: "Set or clear a tenant's own limits (admin only); see docs/limits.md",
    description: 'A number sets the limit for this tenant, null returns it to the platform default, a limit left out stays as it is. Audited as tenant.limits.',
    ok: { type: TenantDto, example: TENANT_EXAMPLE },
    problems: [400, 403, 404],
  })
  @ApiJsonBody(UpdateTenantDto, {
    limits: { summary: 'Let the tenant own 500 servers; return its tool limit to the platform default', value: { limits: { maxServers: 500, maxTools: null } } },
  })
  update(@CurrentPrincipal() principal: Principal, @TenantIdParam() tenantId: string, @Body() body: UpdateTenantDto): Promise<TenantDto> {
    return this.tenants.update(principal, tenantId, body);
  }

  @Post('tenants/:tenantId/api-keys')
  @ApiEndpoint({
    summary: "Make a tenant API key (admin only). The answer is the only place the key ever appears",
    created: { type: CreatedApiKeyDto, example: CREATED_KEY_EXAMPLE },
    problems: [400, 403, 404],
  })
  @ApiJsonBody(CreateApiKeyDto, { key: { summary: 'A key labelled ci', value: { name: 'ci' } } })
  createKey(@CurrentPrincipal() principal: Principal, @TenantIdParam() tenantId: string, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(principal, tenantId, body);
  }

  @Get('tenants/:tenantId/api-keys')
  @ApiEndpoint({ summary: "List a tenant's keys, without the keys themselves (admin only)", ok: { type: ApiKeyListDto, example: { apiKeys: [API_KEY_EXAMPLE] } }, problems: [403, 404] })
  listKeys(@TenantIdParam() tenantId: string): Promise<ApiKeyListDto> {
    return this.keys.list(tenantId);
  }

  @Delete('api-keys/:id')
  @ApiEndpoint({ summary: 'Revoke a tenant API key (admin only); it stops working at once', noContent: 'Revoked (or already revoked)', problems: [403, 404] })
  revokeKey(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the API key (the id POST /api/v1/tenants/{tenantId}/api-keys answered)', EXAMPLE_IDS.apiKey) id: string): Promise<void> {
    return this.keys.revoke(principal, id);
  }
}
