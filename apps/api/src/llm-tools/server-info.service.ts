import { DEFAULT_PAGE_SIZE, ServerRepository, ToolRepository } from '@app/database';
import { kindToWire, NotFoundError, parseKind, parseStatus, Principal, ServerRecord, statusToWire, ToolDefinition } from '@app/domain';
import type { ListServersInput, ListServersResult, McpServerInfo } from '@app/mcp-server';
import { Injectable } from '@nestjs/common';
import { Answer, AnswerCache, audienceOf } from '../common/answer-cache';
import { capabilityNames } from '../servers/server.presenter';

/**
 * The metadata keys under which MCPServerInfo counts what discovery listed besides tools (decimal strings),
 * present when the server declares the list and it was read. The `dev.mcp-registry/` names are the registry's:
 * they take the place of a label of the same name.
 */
export const LISTING_COUNT_KEYS = {
  resources: 'dev.mcp-registry/resources',
  resourceTemplates: 'dev.mcp-registry/resource-templates',
  prompts: 'dev.mcp-registry/prompts',
} as const;

/** The server's labels, with the counts of its resources, resource templates and prompts. */
function infoMetadata(s: ServerRecord): Record<string, string> {
  const counts: [string, number | null][] = [
    [LISTING_COUNT_KEYS.resources, s.resourceCount],
    [LISTING_COUNT_KEYS.resourceTemplates, s.resourceTemplateCount],
    [LISTING_COUNT_KEYS.prompts, s.promptCount],
  ];
  const known = counts.filter((c): c is [string, number] => c[1] !== null);
  if (known.length === 0) return s.metadata;
  return { ...s.metadata, ...Object.fromEntries(known.map(([k, n]) => [k, String(n)])) };
}

/** A server as the reference contract's MCPServerInfo: exactly its fields, enums as canonical names. */
export function toMcpServerInfo(s: ServerRecord, tools: ToolDefinition[]): McpServerInfo {
  return {
    serverId: s.id,
    name: s.name,
    version: s.serverVersion ?? '',
    capabilities: capabilityNames(s.capabilities),
    metadata: infoMetadata(s),
    status: statusToWire(s.status),
    availableTools: tools,
    kind: kindToWire(s.kind),
  };
}

/** The LLM-facing view of servers (the RPC API and the registry's own MCP tools), scoped by the caller. */
@Injectable()
export class ServerInfoService {
  constructor(
    private readonly servers: ServerRepository,
    private readonly tools: ToolRepository,
    private readonly cache: AnswerCache,
  ) {}

  /** getServerInfo() as a JSON answer, kept until the server or its tools change. */
  getServerInfoAnswer(principal: Principal, serverId: string): Promise<Answer> {
    return this.cache.answer(`info:${serverId}`, principal, async () => {
      const server = await this.servers.findById(serverId, principal);
      if (!server) throw new NotFoundError(`server ${serverId} not found`);
      return { value: toMcpServerInfo(server, await this.tools.listServed(server.id, principal)), subject: { serverId: server.id, tenantId: server.tenantId } };
    });
  }

  /** listServers() as a JSON answer, kept until a server the caller may see changes. */
  listServersAnswer(principal: Principal, input: ListServersInput): Promise<Answer> {
    const audience = audienceOf(principal);
    const key = `llm-list:${audience === 'admin' ? 'admin' : audience.tenantId}:${JSON.stringify([input.kind, input.status, input.pageSize, input.pageToken])}`;
    return this.cache.answer(key, principal, async () => ({ value: await this.listServers(principal, input), subject: { audience } }));
  }

  async listServers(principal: Principal, input: ListServersInput): Promise<ListServersResult> {
    const kind = input.kind === undefined ? undefined : parseKind(input.kind);
    const status = input.status === undefined ? undefined : parseStatus(input.status);
    const page = await this.servers.list(
      principal,
      { kinds: kind ? [kind] : undefined, status },
      { pageSize: input.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: input.pageToken },
    );
    const tools = await this.tools.listServedByServers(page.items.map((s) => s.id), principal);
    return {
      servers: page.items.map((s) => toMcpServerInfo(s, tools.get(s.id) ?? [])),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    };
  }
}
