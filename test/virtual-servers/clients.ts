import type { TestApp } from '../support/app';

/** A key's POST of one JSON-RPC request (initialize era) to an MCP path, answered as JSON. */
export async function rpc(t: TestApp, path: string, key: string, method: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  const res = await t.request('POST', path, {
    key,
    body: { jsonrpc: '2.0', id: 1, method, params },
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  });
  return { status: res.status, body: res.body };
}
