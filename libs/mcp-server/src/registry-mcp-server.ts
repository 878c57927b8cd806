import { DomainError, KIND_WIRE_NAMES, Principal, STATUS_WIRE_NAMES } from '@app/domain';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RegistryTools } from './registry-tools';

export const REGISTRY_SERVER_NAME = 'mcp-registry';
export const REGISTRY_SERVER_TITLE = 'MCP Registry';
export const REGISTRY_SERVER_INSTRUCTIONS =
  'This server is the way in to every MCP server and tool the platform offers you. Start with search_tools to ' +
  'find tools for the task, then call one with call_tool using the serverId and tool name from the results. Use ' +
  'list_servers and get_server_info to see which servers exist and what they offer.';

const kindOrNumber = z.union([z.enum(KIND_WIRE_NAMES as [string, ...string[]]), z.number().int().min(1).max(5)]);
const statusOrNumber = z.union([z.enum(STATUS_WIRE_NAMES as [string, ...string[]]), z.number().int().min(1).max(4)]);

export const SEARCH_TOOLS_DESCRIPTION = `Search every tool on the MCP servers you can use and return the best matches for a task, with their full definitions.

WHEN TO USE: the user asks for something and you do not yet know which tool does it: "create a GitHub issue", "find a tool to send a Slack message", "is there anything that can read my calendar?", "what can look up the weather?". Describe the task in plain words as the query.

WHEN NOT TO USE:
  - You already have a serverId and tool name from earlier results: call it with call_tool.
  - You want a server's whole tool list or its status: use get_server_info.
  - You want to see which servers exist: use list_servers.

CRITICAL: results only describe tools; nothing runs until you call call_tool with the serverId and tool.name of a result.

Each result has a confidence: "high" (it matches the request), "medium" (it matches part of it), "low" (a guess: check its description before calling it, or rephrase the query).

Self-test: am I looking for which tool can do something (use this), or do I already know the exact tool to run (use call_tool)?`;

export const GET_SERVER_INFO_DESCRIPTION = `Get one MCP server's details: name, version, kind, status, capabilities, labels and every tool it offers.

WHEN TO USE: "what can the GitHub server do?", "is the Jira server connected?", "show me all tools of server X", or to read a tool's full input schema before calling it.

WHEN NOT TO USE:
  - To find tools for a task across all servers: use search_tools.
  - To list or browse servers: use list_servers (it gives the serverIds this tool needs).
  - To run a tool: use call_tool.

CRITICAL: serverId must be an id returned by list_servers or search_tools; never invent one or use a server's display name.

Self-test: do I hold a real serverId and want that one server's details? If I have only a topic, use search_tools.`;

export const LIST_SERVERS_DESCRIPTION = `List the MCP servers you can use, with their status, kind and tools, one page at a time.

WHEN TO USE: "which servers do I have?", "what integrations are connected?", "show servers in error", or to get a serverId for get_server_info. Filter by kind (e.g. MCP_SERVER_KIND_INTEGRATION) or status (e.g. MCP_SERVER_CONNECTION_STATUS_CONNECTED).

WHEN NOT TO USE:
  - To find a tool for a task: use search_tools, which ranks tools across all servers.
  - For one server you already know: use get_server_info.

CRITICAL: results are paged; when nextPageToken is present, pass it back as pageToken to get the rest.

Self-test: do I need an overview of servers (use this), or a tool for a specific task (use search_tools)?`;

export const CALL_TOOL_DESCRIPTION = `Run one tool on one MCP server and return that tool's result unchanged.

WHEN TO USE: after search_tools or get_server_info showed you the tool that does what the user asked: "create the issue", "send that message", "run the query". Pass the serverId and tool name exactly as returned, and arguments that match the tool's inputSchema.

WHEN NOT TO USE:
  - To find out which tool to use: use search_tools first.
  - To read a tool's schema or a server's status: use get_server_info.

CRITICAL: this runs the upstream tool with real effects (it may write, send, delete or spend); confirm the serverId and toolName came from search_tools or get_server_info results, never from memory.

Self-test: have I seen this exact tool in a search_tools or get_server_info result, and do my arguments match its inputSchema? If not, search first.`;

// The schemas and the JSON Schema validator are built once: the endpoint builds a server for every request.
const SEARCH_INPUT = z.object({
  query: z.string().min(1).max(1000).describe('The task in plain words, e.g. "open a pull request"'),
  limit: z.number().int().min(1).max(50).optional().describe('How many tools to return (default 10)'),
  kinds: z.array(kindOrNumber).max(5).optional().describe('Only servers of these kinds'),
  serverIds: z.array(z.string().uuid()).max(100).optional().describe('Only these servers'),
});

const GET_SERVER_INFO_INPUT = z.object({ serverId: z.string().uuid().describe('A serverId from list_servers or search_tools') });

const LIST_SERVERS_INPUT = z.object({
  kind: kindOrNumber.optional().describe('Only servers of this kind (canonical name or number)'),
  status: statusOrNumber.optional().describe('Only servers with this status (canonical name or number)'),
  pageSize: z.number().int().min(1).max(100).optional().describe('Servers per page (default 50)'),
  pageToken: z.string().max(512).optional().describe('nextPageToken from the previous page'),
});

const CALL_TOOL_INPUT = z.object({
  serverId: z.string().uuid().describe('The serverId of the tool, from search_tools or get_server_info'),
  toolName: z.string().min(1).max(256).describe('The tool name exactly as listed'),
  arguments: z.record(z.string(), z.unknown()).optional().describe("Arguments matching the tool's inputSchema"),
});

let validator: AjvJsonSchemaValidator | undefined;

function json(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Errors the model should see and act on come back as isError results, not protocol failures. */
function asToolError(err: unknown): CallToolResult {
  if (err instanceof DomainError) {
    return { isError: true, content: [{ type: 'text', text: `${err.title}: ${err.message}` }] };
  }
  throw err;
}

/**
 * The registry's own MCP server: an INTERNAL server with four tools, scoped to
 * the principal it was built for. `tools` may be absent where the server is
 * only listed (discovery in a worker process): calls then say where to call.
 */
export function createRegistryMcpServer(tools: RegistryTools | undefined, principal: Principal | undefined, version: string): McpServer {
  const server = new McpServer(
    { name: REGISTRY_SERVER_NAME, title: REGISTRY_SERVER_TITLE, version },
    { capabilities: { tools: {} }, instructions: REGISTRY_SERVER_INSTRUCTIONS, jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()) },
  );

  const run = async (fn: (t: RegistryTools, p: Principal) => Promise<CallToolResult>): Promise<CallToolResult> => {
    if (!tools || !principal) {
      return { isError: true, content: [{ type: 'text', text: 'call this tool through the registry API (/mcp or /api/v1/llm)' }] };
    }
    try {
      return await fn(tools, principal);
    } catch (err) {
      return asToolError(err);
    }
  };

  server.registerTool(
    'search_tools',
    {
      title: 'Search tools',
      description: SEARCH_TOOLS_DESCRIPTION,
      inputSchema: SEARCH_INPUT,
      annotations: { title: 'Search tools', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => run(async (t, p) => json(await t.searchTools(p, args))),
  );

  server.registerTool(
    'get_server_info',
    {
      title: 'Get server info',
      description: GET_SERVER_INFO_DESCRIPTION,
      inputSchema: GET_SERVER_INFO_INPUT,
      annotations: { title: 'Get server info', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => run(async (t, p) => json(await t.getServerInfo(p, args.serverId))),
  );

  server.registerTool(
    'list_servers',
    {
      title: 'List servers',
      description: LIST_SERVERS_DESCRIPTION,
      inputSchema: LIST_SERVERS_INPUT,
      annotations: { title: 'List servers', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => run(async (t, p) => json(await t.listServers(p, args))),
  );

  server.registerTool(
    'call_tool',
    {
      title: 'Call a tool',
      description: CALL_TOOL_DESCRIPTION,
      inputSchema: CALL_TOOL_INPUT,
      annotations: {
        title: 'Call a tool',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    (args, extra) =>
      run(async (t, p) => {
        const progressToken = extra._meta?.progressToken;
        // Progress is forwarded as it comes, and all of it is sent before the result, as the server sent it.
        const forwarded: Promise<void>[] = [];
        const result = await t.callTool(p, args, {
          channel: 'mcp',
          signal: extra.signal,
          onProgress:
            progressToken === undefined
              ? undefined
              : (progress) => {
                  forwarded.push(
                    extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...progress } }).catch(() => undefined),
                  );
                },
        });
        await Promise.all(forwarded);
        return result;
      }),
  );

  return server;
}
