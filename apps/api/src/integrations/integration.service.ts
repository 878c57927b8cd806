import { DiscoveryRequests } from '@app/discovery';
import { AppConfig, APP_CONFIG } from '@app/config';
import { ServerRepository } from '@app/database';
import { ForbiddenError, InvalidInputError, NotConfiguredError, Principal, ServerKind, ServerStatus, TransportType, timeOrderedUuid } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { ServerDto } from '../servers/server.dto';
import { toServerDto } from '../servers/server.presenter';
import { withRequest } from '../servers/server.service';
import { CreateIntegrationDto } from './integration.dto';

/**
 * INTEGRATION servers: a tenant's connected app account, reached through
 * Pipedream Connect's remote MCP server. The registry stores which app and
 * account; the token and the x-pd-* headers are made when connecting.
 */
@Injectable()
export class IntegrationService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly servers: ServerRepository,
    private readonly requests: DiscoveryRequests,
    private readonly audit: AuditService,
  ) {}

  async create(principal: Principal, dto: CreateIntegrationDto): Promise<ServerDto> {
    if (principal.type !== 'tenant') {
      throw new ForbiddenError("integrations connect a tenant's own app account: call this with the tenant's API key");
    }
    const pipedream = this.config.pipedream;
    if (!pipedream) {
      throw new NotConfiguredError(
        'Pipedream Connect is not configured on this platform: the operator sets PIPEDREAM_CLIENT_ID, PIPEDREAM_CLIENT_SECRET and PIPEDREAM_PROJECT_ID',
      );
    }
    const name = (dto.name ?? `pipedream-${dto.appSlug}${dto.accountId ? `-${dto.accountId}` : ''}`).trim();
    if (!name) throw new InvalidInputError('name: must not be blank', [{ field: 'name', message: 'must not be blank' }]);
    const id = timeOrderedUuid();
    // The server and its audit record are written by one statement: both or neither.
    const audited = this.audit.eventsOf(principal, [
      { action: 'integration.create', resourceType: 'server', resourceId: id, tenantId: principal.tenantId, detail: { name, appSlug: dto.appSlug, accountId: dto.accountId ?? null } },
    ]);
    const server = await this.servers.create({
      id,
      tenantId: principal.tenantId,
      name,
      kind: ServerKind.INTEGRATION,
      transport: TransportType.STREAMABLE_HTTP,
      url: pipedream.mcpUrl,
      command: null,
      args: [],
      env: {},
      headers: {},
      credentialsCipher: null,
      credentialsEnv: null,
      enabled: true,
      metadata: dto.metadata ?? {},
      discoveryIntervalSeconds: null,
      appSlug: dto.appSlug,
      accountId: dto.accountId ?? null,
      status: ServerStatus.DISCOVERING,
      statusReason: 'discovery queued',
    }, audited, { maxServers: this.config.tenantLimits.maxServers });
    const asked = await this.requests.request([server.id], 'registered');
    return toServerDto(withRequest(server, asked), principal);
  }
}
