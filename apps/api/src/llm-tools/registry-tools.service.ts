import { canonicalId, Principal } from '@app/domain';
import type { CallToolContext, CallToolInput, ListServersInput, ListServersResult, McpServerInfo, RegistryTools, SearchToolsInput, SearchToolsResult } from '@app/mcp-server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Injectable } from '@nestjs/common';
import { ServerInfoService } from './server-info.service';
import { ToolCallService } from './tool-call.service';
import { ToolCatalogService } from './tool-catalog.service';

/** Ids come in through /mcp too, where no DTO reads them: each is read as every id is. */
const id = (value: string): string => canonicalId(value) ?? value;

/** What the registry's own MCP tools and the /api/v1/llm endpoints do, each scoped by the caller. */
@Injectable()
export class RegistryToolsService implements RegistryTools {
  constructor(
    private readonly catalog: ToolCatalogService,
    private readonly info: ServerInfoService,
    private readonly calls: ToolCallService,
  ) {}

  async searchTools(principal: Principal, input: SearchToolsInput): Promise<SearchToolsResult> {
    return this.catalog.search(principal, input.serverIds ? { ...input, serverIds: input.serverIds.map(id) } : input);
  }

  /** The same kept answer as mcp-get-server-info: one read path, one cache. */
  async getServerInfo(principal: Principal, serverId: string): Promise<McpServerInfo> {
    return JSON.parse((await this.info.getServerInfoAnswer(principal, id(serverId))).body.toString('utf8')) as McpServerInfo;
  }

  /** The same kept answer as mcp-list-servers. */
  async listServers(principal: Principal, input: ListServersInput): Promise<ListServersResult> {
    return JSON.parse((await this.info.listServersAnswer(principal, input)).body.toString('utf8')) as ListServersResult;
  }

  callTool(principal: Principal, input: CallToolInput, context: CallToolContext): Promise<CallToolResult> {
    return this.calls.call(principal, { ...input, serverId: id(input.serverId) }, context);
  }
}
