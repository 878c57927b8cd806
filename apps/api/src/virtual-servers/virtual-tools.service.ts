import { ToolRepository, VirtualServerRecord } from '@app/database';
import { Principal, ToolDefinition } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { ToolCatalogService } from '../llm-tools/tool-catalog.service';
import { memberPrefixes, nameTools, serversNamedBy } from './virtual-tool-names';
import { rewriteToolMeta } from './virtual-uris';

/** One tool as a virtual server lists it: under its listed name, routed to its server's tool. */
export interface VirtualTool {
  name: string;
  serverId: string;
  toolName: string;
  /** The prefix of its member server (its results' resource URIs are rewritten with it). */
  prefix: string;
  definition: ToolDefinition & { _meta: Record<string, unknown> };
}

/** Where a listed tool came from, in its _meta (clients show it; nothing routes by it). */
export const SOURCE_META = 'dev.mcp-registry/source';

/**
 * The tools of a virtual server for one caller: those of its members that are live now (enabled, and their
 * last discovery succeeded: the tool catalog's view), in member order and each server's own order, under
 * names made unique by a per-server prefix (see virtual-tool-names). The prefixes are made from every
 * member, live or not, so that a server going down and coming back changes nobody else's names.
 */
@Injectable()
export class VirtualToolsService {
  constructor(
    private readonly catalog: ToolCatalogService,
    private readonly toolRepository: ToolRepository,
  ) {}

  async tools(principal: Principal, virtual: VirtualServerRecord): Promise<VirtualTool[]> {
    const prefixes = memberPrefixes(distinctServers(virtual));
    return listedTools(virtual, prefixes, await this.definitions(principal, [...prefixes.keys()]));
  }

  /**
   * The listed tool of this name, if it is listed now: read from the one member its prefix names (a name
   * begins with its member's prefix, which the rest of the list cannot take), never from every member.
   */
  async tool(principal: Principal, virtual: VirtualServerRecord, name: string): Promise<VirtualTool | undefined> {
    const prefixes = memberPrefixes(distinctServers(virtual));
    const servers = serversNamedBy(name, prefixes);
    if (servers.length === 0) return undefined;
    return listedTools(virtual, prefixes, await this.definitions(principal, servers), new Set(servers)).find((t) => t.name === name);
  }

  /** The served tools of those of these members that are live now for the caller (the others have none listed). */
  private async definitions(principal: Principal, serverIds: string[]): Promise<Map<string, ToolDefinition[]>> {
    await this.catalog.ready();
    const live = serverIds.filter((id) => this.catalog.find(principal, id) !== undefined);
    return this.toolRepository.listServedByServers(live, principal);
  }
}

/**
 * The tools a virtual server lists, given the served tools of its live members: in member order and each
 * server's own order, under their listed names. With `only`, the tools of those members only, under the very
 * names the whole list gives them (names are made unique within a prefix, and a prefix is one member's).
 */
export function listedTools(
  virtual: VirtualServerRecord,
  prefixes: Map<string, string>,
  definitions: Map<string, ToolDefinition[]>,
  only?: Set<string>,
): VirtualTool[] {
  const picked: { serverId: string; toolName: string; definition: ToolDefinition }[] = [];
  const seen = new Set<string>();
  const add = (serverId: string, definition: ToolDefinition) => {
    const key = `${serverId}\u0000${definition.name}`;
    if (seen.has(key)) return;
    seen.add(key);
    picked.push({ serverId, toolName: definition.name, definition });
  };
  for (const m of virtual.members) {
    if (only && !only.has(m.serverId)) continue;
    const tools = definitions.get(m.serverId);
    if (!tools) continue;
    if (m.toolName === null) for (const d of tools) add(m.serverId, d);
    else {
      const d = tools.find((t) => t.name === m.toolName);
      if (d) add(m.serverId, d);
    }
  }
  const named = nameTools(picked, prefixes);
  return named.map((n, i) => {
    const d = picked[i].definition;
    const prefix = prefixes.get(n.serverId)!;
    // An MCP App's UI resource is read through the virtual server too.
    const meta = { ...rewriteToolMeta(prefix, (d as { _meta?: Record<string, unknown> })._meta ?? {}), [SOURCE_META]: { serverId: n.serverId, toolName: n.toolName } };
    return { ...n, prefix, definition: { ...d, name: n.name, _meta: meta } };
  });
}

/** The member servers, each once, in the order they were first given. */
export function distinctServers(virtual: VirtualServerRecord): { id: string; name: string }[] {
  const out = new Map<string, string>();
  for (const m of virtual.members) if (!out.has(m.serverId)) out.set(m.serverId, m.serverName);
  return [...out].map(([id, name]) => ({ id, name }));
}
