import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2Transport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestApp } from '../support/app';

/** A TypeScript SDK 1.x client connected to /mcp/v/{id} with a key, as Claude Desktop or an agent would connect. */
export async function sdk1Client(t: TestApp, id: string, key: string): Promise<Client> {
  const client = new Client({ name: 'virtual-server-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp/v/${id}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** The 2.x client (@modelcontextprotocol/client): its default negotiation (legacy), auto mode, or 2026-07-28 only. */
export async function sdk2Client(t: TestApp, id: string, key: string, mode: 'legacy' | 'auto' | '2026-07-28'): Promise<Sdk2Client> {
  const negotiation = mode === 'legacy' ? {} : { versionNegotiation: { mode: mode === 'auto' ? ('auto' as const) : { pin: mode } } };
  const client = new Sdk2Client({ name: 'virtual-server-test-v2', version: '2.0.0' }, negotiation);
  await client.connect(new Sdk2Transport(new URL(`${t.baseUrl}/mcp/v/${id}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** A key's POST of one JSON-RPC request to a path, answered as JSON. */
export async function rpc(t: TestApp, path: string, key: string, method: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  const res = await t.request('POST', path, {
    key,
    body: { jsonrpc: '2.0', id: 1, method, params },
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  });
  return { status: res.status, body: res.body };
}
