import { Principal } from '@app/domain';
import { Body, Controller, Delete, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiJsonBody } from '../common/api-examples';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { IdParam } from '../common/ids';
import {
  CreateVirtualServerDto,
  ListVirtualServersQueryDto,
  UpdateVirtualServerDto,
  VirtualServerDto,
  VirtualServerPageDto,
  VirtualToolListDto,
} from './virtual-server.dto';
import {
  CREATE_VIRTUAL_SERVER_EXAMPLES,
  EXAMPLE_VIRTUAL_ID,
  UPDATE_VIRTUAL_SERVER_EXAMPLES,
  VIRTUAL_SERVER_EXAMPLE,
  VIRTUAL_SERVER_PAGE_EXAMPLE,
  VIRTUAL_TOOLS_EXAMPLE,
} from './virtual-server.examples';
import { VirtualServerService } from './virtual-server.service';

@ApiTags('virtual-servers')
@ApiAuthenticated()
@Controller('api/v1/virtual-servers')
export class VirtualServerController {
  constructor(private readonly virtualServers: VirtualServerService) {}

  @Post()
  @ApiEndpoint({
    summary: 'Make a virtual server: chosen servers (every tool) and single tools, served as one MCP server at /mcp/v/{id}',
    description:
      "A tenant makes one from the servers it may see (its own and the platform's); the administrator makes the platform's, " +
      'from platform servers only, and every tenant may see and use those. Give `servers`, `tools` or both. An unknown server ' +
      "and another tenant's are refused alike (400, naming the field); so is a tool the server's last discovery did not find.",
    created: { type: VirtualServerDto, example: VIRTUAL_SERVER_EXAMPLE },
    problems: [400, 409],
  })
  @ApiJsonBody(CreateVirtualServerDto, CREATE_VIRTUAL_SERVER_EXAMPLES)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateVirtualServerDto): Promise<VirtualServerDto> {
    return this.virtualServers.create(principal, body);
  }

  @Get()
  @ApiEndpoint({
    summary: "The virtual servers the caller may see: its own and the platform's (the admin: every one)",
    ok: { type: VirtualServerPageDto, example: VIRTUAL_SERVER_PAGE_EXAMPLE },
    problems: [400],
  })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListVirtualServersQueryDto): Promise<VirtualServerPageDto> {
    return this.virtualServers.list(principal, query);
  }

  @Get(':id')
  @ApiEndpoint({ summary: 'One virtual server', ok: { type: VirtualServerDto, example: VIRTUAL_SERVER_EXAMPLE }, problems: [404] })
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the virtual server', EXAMPLE_VIRTUAL_ID) id: string): Promise<VirtualServerDto> {
    return this.virtualServers.get(principal, id);
  }

  @Get(':id/tools')
  @ApiEndpoint({
    summary: 'The tools /mcp/v/{id} lists to the caller now, each with the server and tool it routes to',
    ok: { type: VirtualToolListDto, example: VIRTUAL_TOOLS_EXAMPLE },
    problems: [404],
  })
  tools(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the virtual server', EXAMPLE_VIRTUAL_ID) id: string): Promise<VirtualToolListDto> {
    return this.virtualServers.toolsOf(principal, id);
  }

  @Patch(':id')
  @ApiEndpoint({
    summary: 'Change a virtual server (its owner, or the admin): name, description, or its members (servers and tools given replace the whole selection)',
    description: "Connected MCP clients are told that the tool list changed. A tenant changing the platform's gets 403.",
    ok: { type: VirtualServerDto, example: VIRTUAL_SERVER_EXAMPLE },
    problems: [400, 403, 404, 409],
  })
  @ApiJsonBody(UpdateVirtualServerDto, UPDATE_VIRTUAL_SERVER_EXAMPLES)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'the virtual server', EXAMPLE_VIRTUAL_ID) id: string,
    @Body() body: UpdateVirtualServerDto,
  ): Promise<VirtualServerDto> {
    return this.virtualServers.update(principal, id, body);
  }

  @Delete(':id')
  @ApiEndpoint({ summary: 'Delete a virtual server (its owner, or the admin); its member servers stay', noContent: 'Deleted', problems: [403, 404] })
  delete(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the virtual server', EXAMPLE_VIRTUAL_ID) id: string): Promise<void> {
    return this.virtualServers.delete(principal, id);
  }
}
