import { Principal } from '@app/domain';
import { McpServerDefinition, registryVersion } from '@app/mcp-server';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ToolCallService } from '../llm-tools/tool-call.service';
import { McpEndpoint } from '../mcp/mcp-endpoint.service';
import { VirtualContentService } from './virtual-content.service';
import { virtualDefinition } from './virtual-mcp-server';
import { VirtualServerService } from './virtual-server.service';
import { VirtualToolsService } from './virtual-tools.service';

/** The MCP route of a virtual server: its change streams are checked again by this name. */
export function virtualRouteName(id: string): string {
  return `/mcp/v/${id}`;
}

/**
 * /mcp/v/{id}: a virtual server served on the MCP endpoint seam (both eras, no session, any replica; the
 * 2025-era GET stream and the 2026-07-28 subscriptions/listen announce changes of its tool list).
 */
@Injectable()
export class VirtualMcpService {
  constructor(
    private readonly endpoint: McpEndpoint,
    private readonly virtualServers: VirtualServerService,
    private readonly tools: VirtualToolsService,
    private readonly calls: ToolCallService,
    private readonly content: VirtualContentService,
  ) {}

  serve(principal: Principal, id: string, req: Request, res: Response): Promise<void> {
    return this.endpoint.serve({ name: virtualRouteName(id), definitionFor: (p) => this.definition(p, id) }, principal, req, res);
  }

  /** The virtual server as the caller sees it now; 404 when it may not (or no longer) see it. */
  private async definition(principal: Principal, id: string): Promise<McpServerDefinition> {
    const virtual = await this.virtualServers.findVisible(principal, id);
    return virtualDefinition(virtual, registryVersion(), {
      tools: () => this.tools.tools(principal, virtual),
      tool: (name) => this.tools.tool(principal, virtual, name),
      call: (input, context) => this.calls.call(principal, input, context),
      resources: {
        list: (cursor) => this.content.resources(principal, virtual, cursor),
        templates: () => this.content.templates(principal, virtual),
        read: (uri, context) => this.content.read(principal, virtual, uri, context),
      },
      prompts: {
        list: () => this.content.prompts(principal, virtual),
        get: (name, args, context) => this.content.getPrompt(principal, virtual, name, args, context),
      },
    });
  }
}
