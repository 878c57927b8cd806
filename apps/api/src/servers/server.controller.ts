import { Principal } from '@app/domain';
import { Body, Controller, Delete, Get, Patch, Post, Query, Res } from '@nestjs/common';
import { ServerIdParam } from '../common/ids';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { sendAnswer } from '../common/answer-cache';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import {
  CreateServerDto,
  CreateServersDto,
  DiscoveriesQueryDto,
  DiscoveryRunPageDto,
  ListServersQueryDto,
  ServerDto,
  ServerListDto,
  ServerPageDto,
  ToolListDto,
  UpdateServerDto,
} from './server.dto';
import { LIMITS } from './server.limits';
import { ServerService } from './server.service';
import {
  ApiJsonBody,
  CREATE_SERVER_EXAMPLES,
  CREATE_SERVERS_EXAMPLE,
  DISCOVERY_RUN_EXAMPLE,
  EXAMPLE_IDS,
  NEW_SERVER_EXAMPLE,
  PAGE_TOKEN_EXAMPLE,
  SERVER_EXAMPLE,
  TOOL_EXAMPLE,
  UPDATE_SERVER_EXAMPLES,
} from '../common/api-examples';

@ApiTags('servers')
@ApiAuthenticated()
@Controller('api/v1/servers')
export class ServerController {
  constructor(private readonly servers: ServerService) {}

  @Post()
  @ApiEndpoint({
    summary: 'Register a server: the admin registers BUILT_IN servers (or CUSTOM ones for a tenant, with tenantId); a tenant registers CUSTOM servers',
    description:
      'Answers with the server, status MCP_SERVER_CONNECTION_STATUS_DISCOVERING, discovery queued. Tenant servers must be remote ' +
      '(streamable-http or sse) and their URL must pass the outbound address policy. INTERNAL and EXTERNAL servers cannot be ' +
      'registered through the API (403); INTEGRATION servers are made with POST /api/v1/integrations.',
    created: { type: ServerDto, example: NEW_SERVER_EXAMPLE },
    problems: [400, 403, 409, 413],
  })
  @ApiJsonBody(CreateServerDto, CREATE_SERVER_EXAMPLES)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateServerDto): Promise<ServerDto> {
    return this.servers.create(principal, body);
  }

  @Post('batch')
  @ApiEndpoint({
    summary: `Register several servers at once (up to ${LIMITS.batch}): all of them or none`,
    description:
      'Each registration is as for POST /api/v1/servers, with the same rules for who may register what. A refusal names the ' +
      'item (`servers.3.url`) and nothing is registered; a name already taken, or given twice in the request for the same ' +
      'owner, registers nothing either. Answers 201 with the servers in the order given, each DISCOVERING with its discovery queued.',
    created: {
      type: ServerListDto,
      example: { servers: CREATE_SERVERS_EXAMPLE.servers.map((s, i) => ({ ...NEW_SERVER_EXAMPLE, ...s, id: `0193a5b2-7c1e-7d3a-9f40-5e6d7c8b9a1${i}`, headers: {}, hasCredentials: false })) },
    },
    problems: [400, 403, 409, 413],
  })
  @ApiJsonBody(CreateServersDto, { catalog: { summary: 'Two remote servers registered together', value: CREATE_SERVERS_EXAMPLE } })
  async createMany(@CurrentPrincipal() principal: Principal, @Body() body: CreateServersDto): Promise<ServerListDto> {
    return { servers: await this.servers.createMany(principal, body.servers) };
  }

  @Get()
  @ApiEndpoint({
    summary: "The servers the caller may see: the platform's (INTERNAL, BUILT_IN, EXTERNAL) and its own",
    ok: { type: ServerPageDto, example: { servers: [SERVER_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } },
    problems: [400],
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListServersQueryDto, @Res() res: Response): Promise<void> {
    sendAnswer(res, await this.servers.listAnswer(principal, query));
  }

  @Get(':id')
  @ApiEndpoint({ summary: 'One server', ok: { type: ServerDto, example: SERVER_EXAMPLE }, problems: [404] })
  get(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string): Promise<ServerDto> {
    return this.servers.get(principal, id);
  }

  @Patch(':id')
  @ApiEndpoint({
    summary: 'Change a server (its owner, or the admin); enable or disable it with `enabled`',
    description: 'A change to how the server is reached queues a new discovery. INTERNAL and EXTERNAL servers are read-only (403).',
    ok: { type: ServerDto, example: { ...SERVER_EXAMPLE, enabled: false, status: 'MCP_SERVER_CONNECTION_STATUS_DISCONNECTED', statusReason: 'disabled' } },
    problems: [400, 403, 404, 409, 413],
  })
  @ApiJsonBody(UpdateServerDto, UPDATE_SERVER_EXAMPLES)
  update(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string, @Body() body: UpdateServerDto): Promise<ServerDto> {
    return this.servers.update(principal, id, body);
  }

  @Delete(':id')
  @ApiEndpoint({ summary: 'Delete a server (its owner, or the admin), with its tools and discovery history', noContent: 'Deleted', problems: [403, 404] })
  delete(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string): Promise<void> {
    return this.servers.delete(principal, id);
  }

  @Post(':id/discover')
  @ApiEndpoint({
    summary: 'Queue a discovery now (its owner, or the admin)',
    accepted: {
      type: ServerDto,
      description: 'Queued: the server shows DISCOVERING until the discovery ends',
      example: { ...SERVER_EXAMPLE, status: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING', statusReason: 'discovery queued' },
    },
    problems: [403, 404, 409],
  })
  discover(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string): Promise<ServerDto> {
    return this.servers.discover(principal, id);
  }

  @Get(':id/tools')
  @ApiEndpoint({ summary: 'The tools as last discovered', ok: { type: ToolListDto, example: { serverId: EXAMPLE_IDS.server, tools: [TOOL_EXAMPLE] } }, problems: [404] })
  tools(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string): Promise<ToolListDto> {
    return this.servers.tools(principal, id);
  }

  @Get(':id/discoveries')
  @ApiEndpoint({
    summary: 'Past discovery runs, newest first (its owner, or the admin)',
    ok: { type: DiscoveryRunPageDto, example: { serverId: EXAMPLE_IDS.server, runs: [DISCOVERY_RUN_EXAMPLE] } },
    problems: [400, 403, 404],
  })
  discoveries(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string, @Query() query: DiscoveriesQueryDto): Promise<DiscoveryRunPageDto> {
    return this.servers.discoveries(principal, id, query);
  }
}
