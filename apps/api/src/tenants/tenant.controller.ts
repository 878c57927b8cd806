import { Principal } from '@app/domain';
import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { EXAMPLE_IDS } from '../common/api-examples';
import { IdParam } from '../common/ids';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly, CurrentPrincipal } from '../auth/auth.decorators';
import { ApiAuthenticated, ApiProblems } from '../common/api-problems.decorator';
import { PageQueryDto } from '../common/page.dto';
import { ApiKeyService } from './api-key.service';
import { ApiKeyListDto, CreateApiKeyDto, CreatedApiKeyDto, CreateTenantDto, TenantDto, TenantPageDto, UpdateTenantDto } from './tenant.dto';
import { TenantService } from './tenant.service';
import { API_KEY_EXAMPLE, ApiJsonBody, CREATED_KEY_EXAMPLE, PAGE_TOKEN_EXAMPLE, TENANT_EXAMPLE } from '../common/api-examples';

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
  @ApiOperation({ summary: 'Create a tenant (admin only)' })
  @ApiJsonBody(CreateTenantDto, { tenant: { summary: 'A tenant named acme', value: { name: 'acme' } } })
  @ApiCreatedResponse({ type: TenantDto, example: { ...TENANT_EXAMPLE, limits: { ...TENANT_EXAMPLE.limits, maxServers: 200 }, customLimits: {} } })
  @ApiProblems(400, 403, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateTenantDto): Promise<TenantDto> {
    return this.tenants.create(principal, body);
  }

  @Get('tenants')
  @ApiOperation({ summary: 'List tenants, oldest first (admin only)' })
  @ApiOkResponse({ type: TenantPageDto, example: { tenants: [TENANT_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } })
  @ApiProblems(400, 403)
  list(@Query() query: PageQueryDto): Promise<TenantPageDto> {
    return this.tenants.list(query);
  }

  @Get('tenants/:tenantId')
  @ApiOperation({ summary: 'One tenant, with the limits that apply to it (admin only)' })
  @ApiOkResponse({ type: TenantDto, example: TENANT_EXAMPLE })
  @ApiProblems(403, 404)
  get(@IdParam('tenantId', 'the tenant', EXAMPLE_IDS.tenant) tenantId: string): Promise<TenantDto> {
    return this.tenants.get(tenantId);
  }

  @Patch('tenants/:tenantId')
  @ApiOperation({
    summary: "Set or clear a tenant's own limits (admin only); see docs/limits.md",
    description: 'A number sets the limit for this tenant, null returns it to the platform default, a limit left out stays as it is. Audited as tenant.limits.',
  })
  @ApiJsonBody(UpdateTenantDto, {
    limits: { summary: 'Let the tenant own 500 servers; return its tool limit to the platform default', value: { limits: { maxServers: 500, maxTools: null } } },
  })
  @ApiOkResponse({ type: TenantDto, example: TENANT_EXAMPLE })
  @ApiProblems(400, 403, 404)
  update(@CurrentPrincipal() principal: Principal, @IdParam('tenantId', 'the tenant', EXAMPLE_IDS.tenant) tenantId: string, @Body() body: UpdateTenantDto): Promise<TenantDto> {
    return this.tenants.update(principal, tenantId, body);
  }

  @Post('tenants/:tenantId/api-keys')
  @ApiOperation({ summary: "Make a tenant API key (admin only). The answer is the only place the key ever appears" })
  @ApiJsonBody(CreateApiKeyDto, { key: { summary: 'A key labelled ci', value: { name: 'ci' } } })
  @ApiCreatedResponse({ type: CreatedApiKeyDto, example: CREATED_KEY_EXAMPLE })
  @ApiProblems(400, 403, 404)
  createKey(@CurrentPrincipal() principal: Principal, @IdParam('tenantId', 'the tenant', EXAMPLE_IDS.tenant) tenantId: string, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(principal, tenantId, body);
  }

  @Get('tenants/:tenantId/api-keys')
  @ApiOperation({ summary: "List a tenant's keys, without the keys themselves (admin only)" })
  @ApiOkResponse({ type: ApiKeyListDto, example: { apiKeys: [API_KEY_EXAMPLE] } })
  @ApiProblems(403, 404)
  listKeys(@IdParam('tenantId', 'the tenant', EXAMPLE_IDS.tenant) tenantId: string): Promise<ApiKeyListDto> {
    return this.keys.list(tenantId);
  }

  @Delete('api-keys/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a tenant API key (admin only); it stops working at once' })
  @ApiNoContentResponse({ description: 'Revoked (or already revoked)' })
  @ApiProblems(403, 404)
  revokeKey(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the API key (the id POST /api/v1/tenants/{tenantId}/api-keys answered)', EXAMPLE_IDS.apiKey) id: string): Promise<void> {
    return this.keys.revoke(principal, id);
  }
}
