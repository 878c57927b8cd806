import { Principal } from '@app/domain';
import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { sendAnswer } from '../common/answer-cache';
import { ApiAuthenticated, ApiProblems } from '../common/api-problems.decorator';
import { GetServerInfoDto, ListServersRpcDto, McpServerInfoDto, McpServerInfoPageDto } from './server-info.dto';
import { ServerInfoService } from './server-info.service';

@ApiTags('llm')
@ApiAuthenticated()
@Controller('api/v1/llm')
export class ServerInfoController {
  constructor(private readonly info: ServerInfoService) {}

  @Post('mcp-get-server-info')
  @HttpCode(200)
  @ApiOperation({ summary: "One server's MCPServerInfo: name, version, capabilities, labels, status, tools, kind" })
  @ApiOkResponse({ type: McpServerInfoDto })
  @ApiProblems(400, 404)
  async getServerInfo(@CurrentPrincipal() principal: Principal, @Body() body: GetServerInfoDto, @Res() res: Response): Promise<void> {
    sendAnswer(res, await this.info.getServerInfoAnswer(principal, body.serverId));
  }

  @Post('mcp-list-servers')
  @HttpCode(200)
  @ApiOperation({ summary: 'The servers the caller may see, as MCPServerInfo, one page at a time; filters kind and status (names or numbers)' })
  @ApiOkResponse({ type: McpServerInfoPageDto })
  @ApiProblems(400)
  async listServers(@CurrentPrincipal() principal: Principal, @Body() body: ListServersRpcDto, @Res() res: Response): Promise<void> {
    sendAnswer(res, await this.info.listServersAnswer(principal, body));
  }
}
