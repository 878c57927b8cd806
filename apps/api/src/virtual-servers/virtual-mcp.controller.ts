import { Principal } from '@app/domain';
import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiMcpAnswer } from '../common/api-examples';
import { ApiAuthenticated, ApiProblems } from '../common/api-problems.decorator';
import { IdParam } from '../common/ids';
import { EXAMPLE_VIRTUAL_ID } from './virtual-server.examples';
import { VirtualMcpService } from './virtual-mcp.service';


@ApiTags('mcp')
@ApiAuthenticated()
@Controller('mcp/v')
export class VirtualMcpController {
  constructor(private readonly endpoint: VirtualMcpService) {}

  @Post(':id')
  @ApiOperation({
    summary: 'A virtual server as an MCP server (Streamable HTTP, both eras, no session): its tools listed directly, calls routed to their servers',
    description:
      'Send MCP JSON-RPC messages with `Accept: application/json, text/event-stream`, with the same API keys as /mcp. tools/list ' +
      'lists the tools of the member servers that are live now, named `<server prefix>__<tool>` (at most 64 characters); tools/call ' +
      'of one of them is routed as the call_tool tool of /mcp routes it (scope, limits, audit). A tenant may use its own virtual ' +
      "servers and the platform's; another tenant's answers 404. See docs/virtual-servers.md.",
  })
  @ApiBody({
    description: 'A JSON-RPC request, notification or batch',
    schema: { type: 'object', additionalProperties: true },
    examples: {
      list: { summary: 'List its tools', value: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
      call: {
        summary: 'Call a tool of a member server',
        value: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'everything__echo', arguments: { message: 'hello' } } },
      },
    },
  })
  @ApiMcpAnswer({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Echo: hello' }] } })
  @ApiProblems(400, 403, 404)
  async post(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the virtual server', EXAMPLE_VIRTUAL_ID) id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(principal, id, req, res);
  }

  /** The 2025-era standalone stream: notifications/tools/list_changed when the tool list changes. */
  @Get(':id')
  @ApiExcludeEndpoint()
  async get(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(principal, id, req, res);
  }

  /** No session to end: 405. */
  @Delete(':id')
  @ApiExcludeEndpoint()
  async delete(@CurrentPrincipal() principal: Principal, @IdParam('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(principal, id, req, res);
  }
}
