import { Principal, ToolDefinition } from '@app/domain';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The reference contract's server view, as the LLM-facing side answers it. */
export interface McpServerInfo {
  serverId: string;
  name: string;
  version: string;
  capabilities: string[];
  metadata: Record<string, string>;
  status: string;
  availableTools: ToolDefinition[];
  kind: string;
}

export interface SearchToolsInput {
  query: string;
  limit?: number;
  kinds?: (string | number)[];
  serverIds?: string[];
}

export interface SearchToolsResult {
  /** `confidence`: how sure the search is that the tool serves the request ("low": a guess). */
  results: { serverId: string; serverName: string; tool: ToolDefinition; score: number; confidence: 'high' | 'medium' | 'low' }[];
}

export interface ListServersInput {
  kind?: string | number;
  status?: string | number;
  pageSize?: number;
  pageToken?: string;
}

export interface ListServersResult {
  servers: McpServerInfo[];
  nextPageToken?: string;
}

export interface CallToolInput {
  serverId: string;
  toolName: string;
  arguments?: Record<string, unknown>;
}

export interface CallToolContext {
  /** Aborted when the caller goes away. */
  signal?: AbortSignal;
  /** Upstream progress, forwarded to the caller; each one also extends the call's timeout. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** How the call came in, for the audit log: the MCP endpoint's call_tool, or the RPC API. */
  channel?: 'mcp' | 'rpc';
}

/**
 * What the registry's own tools do, scoped by the caller. The HTTP API's
 * services implement it; the MCP server below only adapts it to MCP.
 */
export interface RegistryTools {
  searchTools(principal: Principal, input: SearchToolsInput): Promise<SearchToolsResult>;
  getServerInfo(principal: Principal, serverId: string): Promise<McpServerInfo>;
  listServers(principal: Principal, input: ListServersInput): Promise<ListServersResult>;
  callTool(principal: Principal, input: CallToolInput, context: CallToolContext): Promise<CallToolResult>;
}
