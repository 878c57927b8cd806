import { Principal } from '@app/domain';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { ServerIdParam } from '../common/ids';
import { PUBLISHED_SERVER_JSON } from './catalog.examples';
import { V0ListQueryDto, V0VersionQueryDto } from './registry-v0.dto';
import { RegistryV0Service, ServerList, ServerResponse } from './registry-v0.service';

const RESPONSE_EXAMPLE = {
  server: PUBLISHED_SERVER_JSON,
  _meta: {
    'io.modelcontextprotocol.registry/official': { status: 'active', publishedAt: '2026-12-01T10:00:00.000Z', updatedAt: '2026-12-01T10:00:00.000Z', isLatest: true },
    'dev.mcp-registry/discovery': {
      servers: [
        {
          serverId: '0193a5b2-7c1e-7d3a-9f40-5e6d7c8b9a10',
          name: 'time',
          status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
          statusReason: null,
          lastDiscoveredAt: '2026-12-01T10:00:05.000Z',
          tools: [{ name: 'get_current_time', description: 'Get the current UTC time in RFC 3339 format' }],
        },
      ],
    },
  },
};

@ApiTags('registry API (v0.1)')
@ApiAuthenticated()
@Controller('v0.1/servers')
export class RegistryV0Controller {
  constructor(private readonly registry: RegistryV0Service) {}

  @Get()
  @ApiEndpoint({
    summary: 'The official Registry API list: the catalog entries the caller sees, then the registry\'s own servers as server.json',
    description:
      "Scoped to the key: a tenant sees the platform's entries and its own. What discovery found for servers made from an entry is under " +
      '`_meta["dev.mcp-registry/discovery"]`.',
    ok: { description: 'A ServerList', example: { servers: [RESPONSE_EXAMPLE], metadata: { nextCursor: 'c.eyJsIjoiY2F0YWxvZyJ9', count: 1 } } },
    problems: [400],
  })
  list(@CurrentPrincipal() principal: Principal, @Query() query: V0ListQueryDto): Promise<ServerList> {
    return this.registry.list(principal, query);
  }

  @Get(':serverName/versions')
  @ApiEndpoint({
    summary: 'Every version of one server, newest first',
    ok: { description: 'A ServerList', example: { servers: [RESPONSE_EXAMPLE], metadata: { count: 1 } } },
    problems: [404],
  })
  @ApiParam({ name: 'serverName', description: 'The server name, URL-encoded (io.github.owner%2Fserver)', example: 'io.github.domdomegg%2Ftime-mcp-pypi' })
  versions(@CurrentPrincipal() principal: Principal, @Param('serverName') name: string, @Query() query: V0VersionQueryDto): Promise<ServerList> {
    return this.registry.versions(principal, name, query.include_deleted === 'true');
  }

  @Get(':serverName/versions/:version')
  @ApiEndpoint({ summary: 'One version of a server, or `latest`', ok: { description: 'A ServerResponse', example: RESPONSE_EXAMPLE }, problems: [404] })
  @ApiParam({ name: 'serverName', description: 'The server name, URL-encoded (io.github.owner%2Fserver)', example: 'io.github.domdomegg%2Ftime-mcp-pypi' })
  @ApiParam({ name: 'version', description: 'An exact version (URL-encoded) or latest', example: 'latest' })
  version(@CurrentPrincipal() principal: Principal, @Param('serverName') name: string, @Param('version') version: string, @Query() query: V0VersionQueryDto): Promise<ServerResponse> {
    return this.registry.version(principal, name, version, query.include_deleted === 'true');
  }
}

@ApiTags('servers')
@ApiAuthenticated()
@Controller('api/v1/servers')
export class ServerJsonController {
  constructor(private readonly registry: RegistryV0Service) {}

  @Get(':id/server.json')
  @ApiEndpoint({
    summary: 'A server as a server.json (schema 2025-12-11): the catalog entry it was made from, else one built from its registration',
    description: 'Secret headers are named, never given. POST /api/v1/catalog/import takes the document.',
    ok: { description: 'A server.json', example: PUBLISHED_SERVER_JSON },
    problems: [404],
  })
  serverJson(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string): Promise<Record<string, unknown>> {
    return this.registry.serverJson(principal, id);
  }
}
