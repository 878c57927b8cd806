import type { CatalogToolRow } from '@app/database';
import type { ToolDocument } from '@app/search';

/**
 * One tool in the catalog: what the search index scopes and ranks by, and no more. The definition itself
 * (schemas, descriptions: a kilobyte or two per tool, 150 MB at 100,000 tools) stays in PostgreSQL; it is
 * read while the tool is indexed and fetched again for the tools a search returns.
 */
export class CatalogTool implements ToolDocument {
  constructor(
    readonly serverId: string,
    readonly serverName: string,
    readonly serverKind: string,
    readonly tenantId: string | null,
    readonly toolName: string,
  ) {}
}

/** What the index analyses: the tool with its whole definition, kept by the index only as `tool` (see retainTool). */
export interface AnalysedTool extends ToolDocument {
  readonly tool: CatalogTool;
}

/**
 * `selfName` is what the server calls itself: indexed with the name it was registered under, so that a
 * tenant's "my-gh" is found for "GitHub" when the server says it is GitHub's. `instructions` (their opening)
 * are what it says of itself at initialize, indexed as low-weight context for each of its tools.
 */
export function analysedTool(tool: CatalogTool, row: CatalogToolRow, selfName: string | null, instructions: string | null = null): AnalysedTool {
  return {
    tool,
    serverId: tool.serverId,
    serverName: selfName && selfName !== tool.serverName ? `${tool.serverName} ${selfName}` : tool.serverName,
    serverKind: tool.serverKind,
    tenantId: tool.tenantId,
    toolName: tool.toolName,
    title: row.title ?? undefined,
    description: row.description ?? undefined,
    inputSchema: row.inputSchema ?? undefined,
    annotations: row.annotationsTitle === null ? undefined : { title: row.annotationsTitle },
    ...(instructions ? { serverInstructions: instructions } : {}),
  };
}

/** The index's `retain`: it keeps the catalog's own small object, not the definition it analysed. */
export function retainTool(doc: ToolDocument): ToolDocument {
  return (doc as AnalysedTool).tool;
}
