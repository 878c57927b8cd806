import { ServerListingRepository, VirtualServerRecord } from '@app/database';
import { DomainError, ListingKind, NotFoundError, Principal } from '@app/domain';
import { INVALID_PARAMS, McpCallContext, McpDefinitionError } from '@app/mcp-server';
import type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { Injectable } from '@nestjs/common';
import { ServerContentService } from '../llm-tools/server-content.service';
import { ToolCatalogService } from '../llm-tools/tool-catalog.service';
import { memberPrefixes, nameTools } from './virtual-tool-names';
import { distinctServers } from './virtual-tools.service';
import { resolveUri, rewriteContentUris, rewriteUri } from './virtual-uris';

/** Resources per resources/list page. */
const PAGE = 100;
/** The most resource templates or prompts one list federates (each member's list is bounded by discovery too). */
const MAX_LISTED = 1000;
/** JSON-RPC "internal error": a refusal of the registry (a limit, a member that failed) said in its message. */
const INTERNAL_ERROR = -32603;

interface Member {
  serverId: string;
  prefix: string;
}

/** A domain error as the JSON-RPC error a definition answers with (its message carries no secret). */
function asDefinitionError(err: unknown): never {
  if (err instanceof NotFoundError) throw new McpDefinitionError(INVALID_PARAMS, err.message);
  if (err instanceof DomainError) throw new McpDefinitionError(INTERNAL_ERROR, `${err.title}: ${err.message}`);
  throw err;
}

function encodeCursor(serverId: string, token: string | undefined): string {
  return Buffer.from(JSON.stringify({ s: serverId, t: token }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { s: string; t?: string } {
  const invalid = () => new McpDefinitionError(INVALID_PARAMS, 'invalid cursor: not a cursor of this list');
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown; t?: unknown };
    if (typeof parsed.s === 'string' && (parsed.t === undefined || typeof parsed.t === 'string')) return parsed as { s: string; t?: string };
  } catch {
    // falls through to the refusal
  }
  throw invalid();
}

/**
 * The resources, resource templates and prompts of a virtual server, federated from its whole-server members
 * (a member picked for single tools brings only those tools) that are live now, in member order, as their
 * last discovery found them. URIs and URI templates carry the member's prefix (see virtual-uris), prompts are
 * named `<prefix>__<prompt>` like tools; a read or a get is sent back to the member that listed it, routed as
 * tool calls are (ServerContentService: scope, limits, audit), and URIs in what comes back are rewritten too.
 */
@Injectable()
export class VirtualContentService {
  constructor(
    private readonly catalog: ToolCatalogService,
    private readonly listings: ServerListingRepository,
    private readonly content: ServerContentService,
  ) {}

  async resources(principal: Principal, virtual: VirtualServerRecord, cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const members = await this.members(principal, virtual);
    let at = 0;
    let token: string | undefined;
    if (cursor !== undefined) {
      const c = decodeCursor(cursor);
      at = members.findIndex((m) => m.serverId === c.s);
      if (at < 0) throw new McpDefinitionError(INVALID_PARAMS, 'invalid cursor: the list changed; list again from the start');
      token = c.t;
    }
    const resources: Resource[] = [];
    for (; at < members.length && resources.length < PAGE; at++, token = undefined) {
      const m = members[at];
      const page = await this.listings.page(m.serverId, 'resource', { pageSize: PAGE - resources.length, pageToken: token }).catch(asDefinitionError);
      for (const item of page.items) resources.push({ ...(item.definition as Resource), uri: rewriteUri(m.prefix, item.key) });
      if (page.nextPageToken) return { resources, nextCursor: encodeCursor(m.serverId, page.nextPageToken) };
    }
    return at < members.length ? { resources, nextCursor: encodeCursor(members[at].serverId, undefined) } : { resources };
  }

  async templates(principal: Principal, virtual: VirtualServerRecord): Promise<ResourceTemplate[]> {
    const listed = await this.listAll(principal, virtual, 'resource_template');
    return listed.map(({ member, key, definition }) => ({ ...(definition as ResourceTemplate), uriTemplate: rewriteUri(member.prefix, key) }));
  }

  async read(principal: Principal, virtual: VirtualServerRecord, uri: string, context: McpCallContext): Promise<ReadResourceResult> {
    const resolved = resolveUri(uri);
    const member = resolved && (await this.members(principal, virtual)).find((m) => m.prefix === resolved.prefix);
    if (!resolved || !member) throw new McpDefinitionError(INVALID_PARAMS, `Resource ${uri} not found: it is not a resource of virtual server "${virtual.name}"`, { uri });
    const result = await this.content.readResource(principal, { serverId: member.serverId, uri: resolved.uri }, { channel: 'mcp', signal: context.signal }).catch(asDefinitionError);
    return rewriteContentUris(member.prefix, result);
  }

  async prompts(principal: Principal, virtual: VirtualServerRecord): Promise<Prompt[]> {
    return (await this.namedPrompts(principal, virtual)).map((p) => ({ ...p.definition, name: p.name }));
  }

  async getPrompt(principal: Principal, virtual: VirtualServerRecord, name: string, args: Record<string, string> | undefined, context: McpCallContext): Promise<GetPromptResult> {
    const prompt = (await this.namedPrompts(principal, virtual)).find((p) => p.name === name);
    if (!prompt) throw new McpDefinitionError(INVALID_PARAMS, `Prompt ${name} not found: prompts/list lists the prompts of virtual server "${virtual.name}"`);
    const result = await this.content
      .getPrompt(principal, { serverId: prompt.member.serverId, name: prompt.key, arguments: args }, { channel: 'mcp', signal: context.signal })
      .catch(asDefinitionError);
    return rewriteContentUris(prompt.member.prefix, result);
  }

  private async namedPrompts(principal: Principal, virtual: VirtualServerRecord): Promise<{ name: string; key: string; member: Member; definition: Prompt }[]> {
    const listed = await this.listAll(principal, virtual, 'prompt');
    const named = nameTools(
      listed.map((l) => ({ serverId: l.member.serverId, toolName: l.key })),
      new Map(listed.map((l) => [l.member.serverId, l.member.prefix])),
    );
    return listed.map((l, i) => ({ name: named[i].name, key: l.key, member: l.member, definition: l.definition as Prompt }));
  }

  /** Every item of one kind of the live whole-server members, in member order, up to MAX_LISTED. */
  private async listAll(principal: Principal, virtual: VirtualServerRecord, kind: ListingKind): Promise<{ member: Member; key: string; definition: Record<string, unknown> }[]> {
    const out: { member: Member; key: string; definition: Record<string, unknown> }[] = [];
    for (const member of await this.members(principal, virtual)) {
      let token: string | undefined;
      do {
        const page = await this.listings.page(member.serverId, kind, { pageSize: Math.min(PAGE, MAX_LISTED - out.length), pageToken: token });
        for (const item of page.items) out.push({ member, key: item.key, definition: item.definition });
        token = page.nextPageToken;
      } while (token && out.length < MAX_LISTED);
      if (out.length >= MAX_LISTED) break;
    }
    return out;
  }

  /** The whole-server members live now for this caller, each with its prefix (made from every member, as for tools). */
  private async members(principal: Principal, virtual: VirtualServerRecord): Promise<Member[]> {
    await this.catalog.ready();
    const prefixes = memberPrefixes(distinctServers(virtual));
    return virtual.members
      .filter((m) => m.toolName === null && this.catalog.find(principal, m.serverId) !== undefined)
      .map((m) => ({ serverId: m.serverId, prefix: prefixes.get(m.serverId)! }));
  }
}
