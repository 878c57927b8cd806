import { VirtualServerRecord } from '@app/database';
import { asToolError, CallToolContext, CallToolInput, forwardingProgress, INVALID_PARAMS, McpDefinitionError, McpServerDefinition } from '@app/mcp-server';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { VirtualTool } from './virtual-tools.service';
import { rewriteContentUris } from './virtual-uris';

/** What a virtual server's definition needs of the rest of the registry, scoped to one caller. */
export interface VirtualServerBackend {
  /** The tools listed now. */
  tools(): Promise<VirtualTool[]>;
  /** The one listed now under this name, if any (read from its member alone). */
  tool(name: string): Promise<VirtualTool | undefined>;
  /** A call, routed exactly as call_tool routes one (scope, liveness, limits, audit). */
  call(input: CallToolInput, context: CallToolContext): Promise<CallToolResult>;
  /** Its members' resources, templates and prompts, federated (see VirtualContentService). */
  resources: NonNullable<McpServerDefinition['resources']>;
  prompts: NonNullable<McpServerDefinition['prompts']>;
}

/**
 * A virtual server as an MCP server definition for one caller: its tools listed directly under their
 * prefixed names, a call of one of them sent to its member server's tool (resource URIs in the result
 * rewritten so that a read of one comes back to that member). A name it does not list (now) is an unknown
 * tool (invalid params); a call the registry refuses is the tool's isError result, saying why.
 */
export function virtualDefinition(virtual: VirtualServerRecord, version: string, backend: VirtualServerBackend): McpServerDefinition {
  return {
    info: { name: virtual.name, version, ...(virtual.description ? { description: virtual.description } : {}) },
    ...(virtual.description ? { instructions: virtual.description } : {}),
    tools: {
      list: async () => (await backend.tools()).map((t) => t.definition as Tool),
      async call(name, args, context) {
        const tool = await backend.tool(name);
        if (!tool) throw new McpDefinitionError(INVALID_PARAMS, `Unknown tool: ${name} is not a tool of virtual server "${virtual.name}" now; tools/list lists them`);
        try {
          const result = await forwardingProgress(context, (callContext) => backend.call({ serverId: tool.serverId, toolName: tool.toolName, arguments: args ?? {} }, callContext));
          return rewriteContentUris(tool.prefix, result);
        } catch (err) {
          return asToolError(err);
        }
      },
    },
    resources: backend.resources,
    prompts: backend.prompts,
  };
}
