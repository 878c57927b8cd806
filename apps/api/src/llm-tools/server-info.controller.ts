import { Principal } from '@app/domain';
import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { sendAnswer } from '../common/answer-cache';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { GetServerInfoDto, ListServersRpcDto, McpServerInfoDto, McpServerInfoPageDto } from './server-info.dto';
import { ServerInfoService } from './server-info.service';
import { ApiJsonBody, EXAMPLE_IDS, PAGE_TOKEN_EXAMPLE, SERVER_INFO_EXAMPLE } from '../common/api-examples';

@ApiTags('llm')
@ApiAuthenticated()
@Controller('api/v1/llm')
export class ServerInfoController {
  constructor(private readonly info: ServerInfoService) {}

  @Post('mcp-get-server-info')
  @ApiEndpoint({
    summary: "One server's MCPServerInfo: name, version, capabilities, labels, status, tools, kind",
    ok: { type: McpServerInfoDto, example: SERVER_INFO_EXAMPLE },
    problems: [400, 404],
  })
  @ApiJsonBody(GetServerInfoDto, { server: { summary: 'A serverId from mcp-list-servers or mcp-search-tools', value: { serverId: EXAMPLE_IDS.server } } })
  async getServerInfo(@CurrentPrincipal() principal: Principal, @Body() body: GetServerInfoDto, @Res() res: Response): Promise<void> {
    sendAnswer(res, await this.info.getServerInfoAnswer(principal, body.serverId));
  }

  @Post('mcp-list-servers')
  @ApiEndpoint({
    summary: 'The servers the caller may see, as MCPServerInfo, one page at a time; filters kind and status (names or numbers)',
    ok: { type: McpServerInfoPageDto, example: { servers: [SERVER_INFO_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } },
    problems: [400],
  })
  @ApiJsonBody(ListServersRpcDto, {
    connected: { summary: 'The connected servers, 20 at a time', value: { status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', pageSize: 20 } },
    byNumber: { summary: 'The CUSTOM servers, the kind given as its number', value: { kind: 3 } },
  })
  async listServers(@CurrentPrincipal() principal: Principal, @Body() body: ListServersRpcDto, @Res() res: Response): Promise<void> {
    sendAnswer(res, await this.info.listServersAnswer(principal, body));
  }
}
