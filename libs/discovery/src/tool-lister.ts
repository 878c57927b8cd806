import type { DroppedTool, StoredTool } from '@app/database';
import { McpFailure, McpFailureCode, McpSession } from '@app/mcp';
import type { Redact } from './discovered-text';
import { ToolCollector } from './tool-definition';

/** How much of a server's listing the registry reads before it stops with an error. */
export interface ListingLimits {
  maxPages: number;
  maxTools: number;
  /** Resources, resource templates or prompts kept of one list; the rest are not read. */
  maxItems: number;
  /** Bytes one discovery may read from a server (counted as they arrive). */
  maxBytes: number;
}

export const DEFAULT_LISTING_LIMITS: ListingLimits = { maxPages: 100, maxTools: 10_000, maxItems: 10_000, maxBytes: 16 * 1024 * 1024 };

export interface ListingContext {
  signal: AbortSignal;
  timeoutMs: number;
  limits: ListingLimits;
  /** Told what is under way, for the message of a failure ("tools/list page 3"). */
  onPhase(phase: string): void;
  /** Removes the server's own secrets from what it lists (none given: nothing to remove). */
  redact?: Redact;
}

export interface ToolListing {
  tools: StoredTool[];
  dropped: DroppedTool[];
  droppedCount: number;
  pages: number;
}

/**
 * Reads every page of a paginated list, following `nextCursor` until it is
 * absent, within the page bound. A cursor the server already gave is a loop
 * and ends the listing with an error instead of running until the bound.
 */
export async function* listPages(
  session: McpSession,
  method: string,
  ctx: ListingContext,
): AsyncGenerator<{ page: number; result: Record<string, unknown> }> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    ctx.onPhase(page === 1 ? method : `${method} page ${page}`);
    const result = await session.request(method, cursor !== undefined ? { cursor } : undefined, { signal: ctx.signal, timeoutMs: ctx.timeoutMs });
    yield { page, result };
    const next = result.nextCursor;
    if (next === undefined || next === null || next === '') return;
    if (typeof next !== 'string') throw new McpFailure(McpFailureCode.ProtocolViolation, `${method} page ${page} has a nextCursor that is not a string`);
    if (seen.has(next)) throw new McpFailure(McpFailureCode.ProtocolViolation, `${method} page ${page} repeats the cursor of an earlier page (the listing would never end)`);
    if (page >= ctx.limits.maxPages) {
      throw new McpFailure(McpFailureCode.LimitExceeded, `the server's ${method} has more than ${ctx.limits.maxPages} pages, the most the registry reads`);
    }
    seen.add(next);
    cursor = next;
  }
}

/** Lists every tool, each checked on its own; a malformed tool is dropped and reported, the others kept. */
export async function listAllTools(session: McpSession, ctx: ListingContext): Promise<ToolListing> {
  const collector = new ToolCollector(ctx.redact);
  let count = 0;
  for await (const { page, result } of listPages(session, 'tools/list', ctx)) {
    count = page;
    const tools = result.tools;
    if (!Array.isArray(tools)) {
      throw new McpFailure(McpFailureCode.ProtocolViolation, `the server's answer to tools/list page ${page} has no tools array`);
    }
    if (collector.listed + tools.length > ctx.limits.maxTools) {
      throw new McpFailure(
        McpFailureCode.LimitExceeded,
        `the server lists more than ${ctx.limits.maxTools} tools (${collector.listed + tools.length} by page ${page}), the most the registry keeps for one server`,
      );
    }
    for (const raw of tools) collector.add(raw);
  }
  return { tools: collector.tools, dropped: collector.dropped, droppedCount: collector.droppedCount, pages: count };
}
