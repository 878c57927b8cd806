import { Principal } from '@app/domain';
import { Controller, Delete, Get, HttpException, HttpStatus, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { SEARCH_TOOLS_ANSWER_EXAMPLE } from '../common/api-examples';
import { ApiAuthenticated, ApiProblems } from '../common/api-problems.decorator';
import { McpEndpointService } from './mcp-endpoint.service';

@ApiTags('mcp')
@ApiAuthenticated()
@Controller('mcp')
export class McpController {
  constructor(private readonly endpoint: McpEndpointService) {}

  @Post()
  @ApiOperation({
    summary: 'The MCP endpoint (Streamable HTTP, stateless): tools search_tools, get_server_info, list_servers, call_tool',
    description:
      'Send MCP JSON-RPC messages with `Accept: application/json, text/event-stream`. Each request is answered on its own ' +
      '(no session id); a tools/call carrying a progressToken is answered as an event stream carrying the progress. ' +
      'Scoped by the key like the REST API. A request from a page of another origin (Origin not this registry nor in ' +
      'CORS_ORIGINS) or naming a foreign Host (DNS rebinding; see ALLOWED_HOSTS) gets 403.',
  })
  @ApiBody({
    description: 'A JSON-RPC request, notification or batch',
    schema: { type: 'object', additionalProperties: true },
    examples: {
      search: {
        summary: 'Search the tools the caller may use',
        value: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_tools', arguments: { query: 'open a pull request', limit: 3 } } },
      },
      list: { summary: "List the registry's own tools", value: { jsonrpc: '2.0', id: 2, method: 'tools/list' } },
    },
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    description: 'The JSON-RPC answer (202 with no body for notifications)',
    content: {
      'application/json': {
        schema: { type: 'object', additionalProperties: true },
        example: {
          jsonrpc: '2.0',
          id: 1,
          result: {
            content: [{ type: 'text', text: JSON.stringify(SEARCH_TOOLS_ANSWER_EXAMPLE) }],
            structuredContent: SEARCH_TOOLS_ANSWER_EXAMPLE,
          },
        },
      },
    },
  })
  @ApiProblems(400, 403)
  async post(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.handle(principal, req, res);
  }

  /** Stateless: there is no session stream to open (GET) or session to end (DELETE). */
  @Get()
  @ApiExcludeEndpoint()
  get(@Req() req: Request, @Res({ passthrough: true }) res: Response): never {
    return this.notAllowed(req, res);
  }

  @Delete()
  @ApiExcludeEndpoint()
  delete(@Req() req: Request, @Res({ passthrough: true }) res: Response): never {
    return this.notAllowed(req, res);
  }

  private notAllowed(req: Request, res: Response): never {
    this.endpoint.checkRequest(req);
    res.setHeader('Allow', 'POST');
    throw new HttpException(`${req.method} is not supported: this endpoint keeps no sessions; send each message with POST`, HttpStatus.METHOD_NOT_ALLOWED);
  }
}
