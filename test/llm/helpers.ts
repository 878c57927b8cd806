import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestApp } from '../support/app';
import { waitFor } from '../support/servers';

/** Polls until `probe` returns something truthy (the suite's one poll, under the name these tests know it by). */
export const eventually = waitFor;

/** Registers a server through the API and waits until its discovery settled; returns the server as the API shows it. */
export async function registerAndDiscover(t: TestApp, body: Record<string, unknown>, key?: string): Promise<{ id: string; status: string; statusReason: string | null }> {
  const created = await t.request('POST', '/api/v1/servers', { body, key });
  if (created.status !== 201) throw new Error(`register: ${created.status} ${created.text}`);
  return eventually(`server ${created.body.id} discovered`, async () => {
    const res = await t.request('GET', `/api/v1/servers/${created.body.id}`, { key });
    return res.body.status !== 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING' ? res.body : undefined;
  });
}

/** A plain MCP SDK client on the registry's /mcp endpoint. */
export async function mcpClient(t: TestApp, key: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'llm-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
    requestInit: { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** The JSON a registry tool answered (its structuredContent, else its text parsed). */
export function structured<T = any>(result: object): T {
  const r = result as { structuredContent?: unknown; content?: unknown };
  if (r.structuredContent) return r.structuredContent as T;
  const first = (r.content as { type: string; text: string }[])[0];
  return JSON.parse(first.text) as T;
}
