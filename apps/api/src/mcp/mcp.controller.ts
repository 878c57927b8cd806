import { Principal } from '@app/domain';
import { REGISTRY_TOOLS, registryDefinition, RegistryTools, registryVersion } from '@app/mcp-server';
import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiMcpAnswer, SEARCH_TOOLS_ANSWER_EXAMPLE } from '../common/api-examples';
import { ApiAuthenticated, ApiProblems } from '../common/api-problems.decorator';
import { McpRoute } from './mcp-change-streams.service';
import { McpEndpoint } from './mcp-endpoint.service';

@ApiTags('mcp')
@ApiAuthenticated()
@Controller('mcp')
export class McpController {
  /** The registry's own server: the four tools, its servers as resources, completions and prompts. */
  private readonly route: McpRoute;

  constructor(
    private readonly endpoint: McpEndpoint,
    @Inject(REGISTRY_TOOLS) tools: RegistryTools,
  ) {
    this.route = { name: '/mcp', definitionFor: (principal) => registryDefinition(tools, principal, registryVersion()) };
  }

  @Post()
  @ApiOperation({
    summary: 'The MCP endpoint (Streamable HTTP, stateless, both eras): tools search_tools, get_server_info, list_servers, call_tool; server resources, completions, prompts',
    description:
      'Send MCP JSON-RPC messages with `Accept: application/json, text/event-stream`. Both eras are served, chosen per ' +
      'request: the initialize era (2024-11-05 to 2025-11-25) and 2026-07-28 (server/discover, the _meta envelope, ' +
      'Mcp-Method/Mcp-Name headers, subscriptions/listen). Each request is answered on its own by any replica (no session ' +
      'id); a tools/call carrying a progressToken is answered as an event stream carrying the progress. Tools ' +
      'search_tools, get_server_info, list_servers, call_tool; resources mcp-registry://servers/{serverId} (a template, ' +
      'and a page of servers per resources/list); completion/complete for serverId and toolName; prompts find_tool, ' +
      'describe_server, use_tool, check_servers. ' +
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
      read: {
        summary: 'Read one server as a resource',
        value: { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'mcp-registry://servers/3b241101-e2bb-4255-8caf-4136c566a962' } },
      },
      complete: {
        summary: 'Complete a serverId',
        value: {
          jsonrpc: '2.0',
          id: 4,
          method: 'completion/complete',
          params: { ref: { type: 'ref/resource', uri: 'mcp-registry://servers/{serverId}' }, argument: { name: 'serverId', value: '3b2' } },
        },
      },
    },
  })
  @ApiMcpAnswer({
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: JSON.stringify(SEARCH_TOOLS_ANSWER_EXAMPLE) }], structuredContent: SEARCH_TOOLS_ANSWER_EXAMPLE },
  })
  @ApiProblems(400, 403)
  async post(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(this.route, principal, req, res);
  }

  /** The 2025-era standalone SSE stream: notifications/*_list_changed when a list the caller sees changes. */
  @Get()
  @ApiOperation({
    summary: 'The change stream of the initialize era (Server-Sent Events): list_changed notifications for the caller',
    description:
      'With `Accept: text/event-stream` (SDK clients open it after initialize): stays open and carries ' +
      '`notifications/resources/list_changed` (and tools, prompts) whenever a list the caller sees changes, whichever ' +
      'replica the change was made on. No session: any replica holds it. A GET naming 2026-07-28 in ' +
      'MCP-Protocol-Version answers 405 (that revision listens with subscriptions/listen). See docs/mcp.md.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'An event stream that stays open',
    content: { 'text/event-stream': { schema: { type: 'string' }, example: 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}\n\n' } },
  })
  @ApiProblems(403, 405, 406, 503)
  async get(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(this.route, principal, req, res);
  }

  /** No session to end: 405. */
  @Delete()
  @ApiExcludeEndpoint()
  async delete(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(this.route, principal, req, res);
  }
}
