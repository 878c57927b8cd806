import { DomainError, KIND_WIRE_NAMES, NotFoundError, Principal, REQUEST_LIMITS, STATUS_WIRE_NAMES } from '@app/domain';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import type { CallToolResult, GetPromptResult, Prompt, Resource, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { legacyServerOf } from './definition-servers';
import { CallToolContext, RegistryTools } from './registry-tools';
import { completion, INVALID_PARAMS, McpCallContext, McpCompletion, McpCompletionRequest, McpDefinitionError, McpServerDefinition } from './server-definition';

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
const LIMITS = REQUEST_LIMITS;
const SEARCH_INPUT = z.object({
  query: z.string().min(1).max(LIMITS.queryMaxLength).describe('The task in plain words, e.g. "open a pull request"'),
  limit: z.number().int().min(1).max(LIMITS.searchLimitMax).optional().describe(`How many tools to return (default ${LIMITS.searchLimitDefault})`),
  kinds: z.array(kindOrNumber).max(LIMITS.kindsMaxItems).optional().describe('Only servers of these kinds'),
  serverIds: z.array(z.string().uuid()).max(LIMITS.serverIdsMaxItems).optional().describe('Only these servers'),
});

const GET_SERVER_INFO_INPUT = z.object({ serverId: z.string().uuid().describe('A serverId from list_servers or search_tools') });

const LIST_SERVERS_INPUT = z.object({
  kind: kindOrNumber.optional().describe('Only servers of this kind (canonical name or number)'),
  status: statusOrNumber.optional().describe('Only servers with this status (canonical name or number)'),
  pageSize: z.number().int().min(1).max(LIMITS.pageSizeMax).optional().describe(`Servers per page (default ${LIMITS.pageSizeDefault})`),
  pageToken: z.string().max(LIMITS.pageTokenMaxLength).optional().describe('nextPageToken from the previous page'),
});

const CALL_TOOL_INPUT = z.object({
  serverId: z.string().uuid().describe('The serverId of the tool, from search_tools or get_server_info'),
  toolName: z.string().min(1).max(LIMITS.toolNameMaxLength).describe('The tool name exactly as listed'),
  arguments: z.record(z.string(), z.unknown()).optional().describe("Arguments matching the tool's inputSchema"),
});


function json(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Errors the model should see and act on come back as isError results, not protocol failures. */
export function asToolError(err: unknown): CallToolResult {
  if (err instanceof DomainError) {
    return { isError: true, content: [{ type: 'text', text: `${err.title}: ${err.message}` }] };
  }
  throw err;
}

/**
 * Runs a tool call for an MCP request: cancelled when the request is, and the upstream server's progress
 * forwarded as it comes to a caller who asked for it, all of it before the result, as the server sent it.
 */
export async function forwardingProgress(context: McpCallContext, call: (callContext: CallToolContext) => Promise<CallToolResult>): Promise<CallToolResult> {
  const forwarded: Promise<void>[] = [];
  const progress = context.progress;
  const result = await call({ channel: 'mcp', signal: context.signal, onProgress: progress ? (update) => forwarded.push(progress(update)) : undefined });
  await Promise.all(forwarded);
  return result;
}

interface RegistryTool {
  title: string;
  description: string;
  input: z.ZodObject;
  annotations: ToolAnnotations;
  run(t: RegistryTools, p: Principal, args: never, context: McpCallContext): Promise<CallToolResult>;
}

/** A tool that only reads the registry, answering its result as JSON. */
function reader<S extends z.ZodObject>(title: string, description: string, input: S, read: (t: RegistryTools, p: Principal, args: z.infer<S>) => Promise<unknown>): RegistryTool {
  return {
    title,
    description,
    input,
    annotations: { title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    run: async (t, p, args: z.infer<S>) => json(await read(t, p, args)),
  };
}

const TOOLS: Record<string, RegistryTool> = {
  search_tools: reader('Search tools', SEARCH_TOOLS_DESCRIPTION, SEARCH_INPUT, (t, p, args) => t.searchTools(p, args)),
  get_server_info: reader('Get server info', GET_SERVER_INFO_DESCRIPTION, GET_SERVER_INFO_INPUT, (t, p, args) => t.getServerInfo(p, args.serverId)),
  list_servers: reader('List servers', LIST_SERVERS_DESCRIPTION, LIST_SERVERS_INPUT, (t, p, args) => t.listServers(p, args)),
  call_tool: {
    title: 'Call a tool',
    description: CALL_TOOL_DESCRIPTION,
    input: CALL_TOOL_INPUT,
    annotations: { title: 'Call a tool', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: (t, p, args: z.infer<typeof CALL_TOOL_INPUT>, context) => forwardingProgress(context, (callContext) => t.callTool(p, args, callContext)),
  },
};

/** The tool list, its JSON Schemas made once (the same for every caller). */
let toolList: Tool[] | undefined;
function registryToolList(): Tool[] {
  toolList ??= Object.entries(TOOLS).map(([name, tool]) => ({
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: toJsonSchemaCompat(tool.input, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
    annotations: tool.annotations,
    execution: { taskSupport: 'forbidden' },
  }));
  return toolList;
}

/** The resource template of the servers a caller may see; a read answers the server's MCPServerInfo. */
export const SERVER_RESOURCE_TEMPLATE = 'mcp-registry://servers/{serverId}';
const SERVER_URI = /^mcp-registry:\/\/servers\/([^/?#]+)$/;
export const serverResourceUri = (serverId: string): string => `mcp-registry://servers/${encodeURIComponent(serverId)}`;

/** Servers per resources/list page, and the most a completion reads to find candidates. */
const RESOURCE_PAGE = 100;
const COMPLETION_PAGES = 10;

const PROMPTS: Prompt[] = [
  {
    name: 'find_tool',
    title: 'Find a tool for a task',
    description: 'Find the tool that does a task among every server you can use, and say how to call it.',
    arguments: [{ name: 'task', description: 'The task in plain words, e.g. "open a pull request"', required: true }],
  },
  {
    name: 'describe_server',
    title: 'Describe a server',
    description: 'Explain what one registered server offers (its status and tools), from its registry entry.',
    arguments: [{ name: 'serverId', description: 'The server (completion offers the ones you can see)', required: true }],
  },
  {
    name: 'use_tool',
    title: 'Use a known tool',
    description: "Call one tool of one server for a task: read its input schema first, then call it through call_tool.",
    arguments: [
      { name: 'serverId', description: 'The server of the tool', required: true },
      { name: 'toolName', description: 'The tool (completion offers the tools of serverId)', required: true },
      { name: 'task', description: 'What the call should achieve', required: false },
    ],
  },
  {
    name: 'check_servers',
    title: 'Check the servers',
    description: 'Find the servers that are in error or disconnected, and say why.',
  },
];

const userText = (text: string): GetPromptResult['messages'][number] => ({ role: 'user', content: { type: 'text', text } });

function required(args: Record<string, string> | undefined, name: string, prompt: string): string {
  const value = args?.[name]?.trim();
  if (!value) throw new McpDefinitionError(INVALID_PARAMS, `the prompt ${prompt} needs the argument ${name}`);
  return value.slice(0, 1000);
}

/**
 * The registry's own MCP server for one caller: the four tools, its servers as the resource template
 * `mcp-registry://servers/{serverId}` (and as resources, a page at a time), completion of `serverId` and
 * `toolName`, and prompts for the common tasks; everything scoped to the principal it was built for.
 * `tools` may be absent where the server is only listed (discovery in a worker process): calls then say
 * where to call.
 */
export function registryDefinition(tools: RegistryTools | undefined, principal: Principal | undefined, version: string): McpServerDefinition {
  const scoped = tools && principal ? { tools, principal } : undefined;
  const needScope = () => {
    if (!scoped) throw new McpDefinitionError(INVALID_PARAMS, 'read this through the registry API (/mcp)');
    return scoped;
  };

  /** The servers the caller may see, page by page, at most `pages` pages. */
  async function* visibleServers(pages: number) {
    const { tools: t, principal: p } = needScope();
    let pageToken: string | undefined;
    for (let i = 0; i < pages; i++) {
      const page = await t.listServers(p, { pageSize: RESOURCE_PAGE, pageToken });
      yield* page.servers;
      pageToken = page.nextPageToken;
      if (!pageToken) return;
    }
  }

  async function serverInfoText(serverId: string): Promise<string> {
    const { tools: t, principal: p } = needScope();
    try {
      return JSON.stringify(await t.getServerInfo(p, serverId));
    } catch (err) {
      if (err instanceof NotFoundError || (err instanceof DomainError && err.status === 400)) {
        throw new McpDefinitionError(INVALID_PARAMS, `Resource ${serverResourceUri(serverId)} not found`, { uri: serverResourceUri(serverId) });
      }
      throw err;
    }
  }

  async function completeServerId(value: string): Promise<McpCompletion> {
    const v = value.toLowerCase();
    const out: string[] = [];
    for await (const s of visibleServers(COMPLETION_PAGES)) {
      if (s.serverId.startsWith(v) || s.name.toLowerCase().includes(v)) out.push(s.serverId);
    }
    return completion(out);
  }

  async function completeToolName(value: string, serverId: string | undefined): Promise<McpCompletion> {
    const v = value.toLowerCase();
    const names = new Set<string>();
    const add = (list: { name: string }[]) => list.forEach((tool) => tool.name.toLowerCase().startsWith(v) && names.add(tool.name));
    if (serverId) {
      const { tools: t, principal: p } = needScope();
      const info = await t.getServerInfo(p, serverId).catch((err: unknown) => {
        if (err instanceof DomainError) return undefined;
        throw err;
      });
      if (info) add(info.availableTools);
    } else {
      for await (const s of visibleServers(COMPLETION_PAGES)) add(s.availableTools);
    }
    return completion([...names].sort());
  }

  return {
    info: { name: REGISTRY_SERVER_NAME, title: REGISTRY_SERVER_TITLE, version, description: 'Search, inspect and call the tools of every MCP server registered here' },
    instructions: REGISTRY_SERVER_INSTRUCTIONS,
    tools: {
      list: async () => registryToolList(),
      async call(name, args, context) {
        const tool = TOOLS[name];
        if (!tool) throw new McpDefinitionError(INVALID_PARAMS, `Tool ${name} not found`);
        if (!scoped) return { isError: true, content: [{ type: 'text', text: 'call this tool through the registry API (/mcp or /api/v1/llm)' }] };
        const parsed = tool.input.safeParse(args ?? {});
        if (!parsed.success) {
          return { isError: true, content: [{ type: 'text', text: `Input validation error: Invalid arguments for tool ${name}: ${z.prettifyError(parsed.error)}` }] };
        }
        try {
          return await tool.run(scoped.tools, scoped.principal, parsed.data as never, context);
        } catch (err) {
          return asToolError(err);
        }
      },
    },
    resources: {
      async list(cursor) {
        // Listed without a caller (discovery of the INTERNAL server), there are no servers to show.
        if (!scoped) return { resources: [] };
        const { tools: t, principal: p } = scoped;
        const page = await t.listServers(p, { pageSize: RESOURCE_PAGE, pageToken: cursor }).catch((err: unknown) => {
          if (err instanceof DomainError) throw new McpDefinitionError(INVALID_PARAMS, `invalid cursor: ${err.message}`);
          throw err;
        });
        const resources: Resource[] = page.servers.map((s) => ({
          uri: serverResourceUri(s.serverId),
          name: s.name,
          title: s.name,
          description: `${s.kind} server, ${s.status}, ${s.availableTools.length} tools`,
          mimeType: 'application/json',
        }));
        return { resources, ...(page.nextPageToken ? { nextCursor: page.nextPageToken } : {}) };
      },
      templates: async () => [
        {
          uriTemplate: SERVER_RESOURCE_TEMPLATE,
          name: 'server',
          title: 'A registered MCP server',
          description: 'One server you can use, as its MCPServerInfo JSON: name, version, kind, status, capabilities, labels and tools.',
          mimeType: 'application/json',
        },
      ],
      async read(uri) {
        const match = SERVER_URI.exec(uri);
        if (!match) throw new McpDefinitionError(INVALID_PARAMS, `Resource ${uri} not found`, { uri });
        let serverId: string;
        try {
          serverId = decodeURIComponent(match[1]);
        } catch {
          throw new McpDefinitionError(INVALID_PARAMS, `Resource ${uri} not found`, { uri });
        }
        return { contents: [{ uri, mimeType: 'application/json', text: await serverInfoText(serverId) }] };
      },
    },
    prompts: {
      list: async () => PROMPTS,
      async get(name, args) {
        switch (name) {
          case 'find_tool': {
            const task = required(args, 'task', name);
            return {
              description: `Find a tool for: ${task}`,
              messages: [
                userText(
                  `Find a tool that can do this: ${task}\n\nCall search_tools with the task as the query. Pick the best result (prefer confidence "high"), ` +
                    'tell me which server and tool it is and what it needs as arguments, then call it with call_tool using the serverId and tool.name of that result.',
                ),
              ],
            };
          }
          case 'describe_server': {
            const serverId = required(args, 'serverId', name);
            const uri = serverResourceUri(serverId);
            return {
              description: `Describe server ${serverId}`,
              messages: [
                { role: 'user', content: { type: 'resource', resource: { uri, mimeType: 'application/json', text: await serverInfoText(serverId) } } },
                userText('Explain what this MCP server offers: its status, and what each of its tools does, in a few lines each.'),
              ],
            };
          }
          case 'use_tool': {
            const serverId = required(args, 'serverId', name);
            const toolName = required(args, 'toolName', name);
            const task = args?.task?.trim().slice(0, 1000);
            return {
              description: `Use ${toolName} of server ${serverId}`,
              messages: [
                userText(
                  `Use the tool ${toolName} of the server ${serverId}${task ? ` to: ${task}` : ''}.\n\nFirst call get_server_info with serverId ${serverId} and read the inputSchema of ${toolName}; ` +
                    `then call call_tool with serverId ${serverId}, toolName ${toolName} and arguments that match that schema.`,
                ),
              ],
            };
          }
          case 'check_servers':
            return {
              description: 'Check the servers',
              messages: [
                userText(
                  'Call list_servers with status MCP_SERVER_CONNECTION_STATUS_ERROR, then with MCP_SERVER_CONNECTION_STATUS_DISCONNECTED, and list each server found with its name and what its metadata says about the failure.',
                ),
              ],
            };
          default:
            throw new McpDefinitionError(INVALID_PARAMS, `Prompt ${name} not found`);
        }
      },
    },
    async complete(request: McpCompletionRequest) {
      const { ref, argument } = request;
      const isServerResource = ref.type === 'ref/resource' && ref.uri === SERVER_RESOURCE_TEMPLATE;
      const prompt = ref.type === 'ref/prompt' ? PROMPTS.find((p) => p.name === ref.name) : undefined;
      if (!isServerResource && !prompt) throw new McpDefinitionError(INVALID_PARAMS, 'nothing to complete for that reference');
      const value = argument.value.slice(0, 256);
      if (argument.name === 'serverId') return completeServerId(value);
      if (argument.name === 'toolName' && prompt) return completeToolName(value, request.arguments?.serverId);
      return completion([]);
    },
    // The tool list and the template are the same for every caller for a long time; the server resources are
    // the caller's own: a private cache, kept briefly.
    cacheHint: { ttlMs: 10_000, cacheScope: 'private' },
  };
}

/** The registry's own server on the initialize era (for in-process connections: discovery, call routing). */
export function createRegistryMcpServer(tools: RegistryTools | undefined, principal: Principal | undefined, version: string): Server {
  return legacyServerOf(registryDefinition(tools, principal, version));
}
