import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * What one MCP server offers one caller, independent of the protocol era and transport that carries it:
 * tools, resources, resource templates, prompts and completions, each as plain data plus the handlers that
 * answer them. A definition is built for one caller (its principal already bound in) and serves one request;
 * the endpoint turns it into a 2025-era server (`legacyServerOf`) or a 2026-07-28 one (`modernServerOf`).
 *
 * Lists are read again whenever a change may have touched them (see McpEndpoints): a definition only says
 * what is true now, and the endpoint works out when to tell connected clients that a list changed.
 */
export interface McpServerDefinition {
  info: { name: string; title?: string; version: string; description?: string };
  instructions?: string;
  tools?: {
    list(): Promise<Tool[]>;
    call(name: string, args: Record<string, unknown> | undefined, context: McpCallContext): Promise<CallToolResult>;
  };
  resources?: {
    /** One page of resources; `nextCursor` when there are more. */
    list(cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }>;
    templates(): Promise<ResourceTemplate[]>;
    /** Throws McpDefinitionError(INVALID_PARAMS) for a URI it does not know. */
    read(uri: string, context: McpCallContext): Promise<ReadResourceResult>;
  };
  prompts?: {
    list(): Promise<Prompt[]>;
    /** Throws McpDefinitionError(INVALID_PARAMS) for an unknown prompt or a missing argument. */
    get(name: string, args: Record<string, string> | undefined, context: McpCallContext): Promise<GetPromptResult>;
  };
  /** completion/complete: candidate values for one argument of a prompt or a resource template. */
  complete?(request: McpCompletionRequest, context: McpCallContext): Promise<McpCompletion>;
  /**
   * ttlMs / cacheScope of the 2026-07-28 list results (tools/list, resources/list, resources/templates/list,
   * prompts/list) and of server/discover. Absent: `{ ttlMs: 0, cacheScope: 'private' }`.
   */
  cacheHint?: { ttlMs: number; cacheScope: 'public' | 'private' };
}

export interface McpCallContext {
  /** Aborted when the caller goes away or cancels. */
  signal: AbortSignal;
  /** Present when the caller asked for progress (a progressToken): forwards one progress notification. */
  progress?: (progress: { progress: number; total?: number; message?: string }) => Promise<void>;
}

export interface McpCompletionRequest {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  /** Arguments already filled in (for completing one that depends on another). */
  arguments?: Record<string, string>;
}

export interface McpCompletion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** The JSON-RPC error codes a definition may answer with. */
export const INVALID_PARAMS = -32602;

/** An error a definition throws to answer the request with a JSON-RPC error (not a tool's isError result). */
export class McpDefinitionError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpDefinitionError';
  }
}

/** The most completion values one answer carries (the specification's limit). */
export const MAX_COMPLETION_VALUES = 100;

/** Bounds a list of candidate values to what one completion answer may carry. */
export function completion(values: string[]): McpCompletion {
  return { values: values.slice(0, MAX_COMPLETION_VALUES), total: values.length, hasMore: values.length > MAX_COMPLETION_VALUES };
}
