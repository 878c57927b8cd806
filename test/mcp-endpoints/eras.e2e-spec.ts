import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, TenantKey } from '../support/tenants';

const TOOLS = ['call_tool', 'get_server_info', 'list_servers', 'search_tools'];

describe('/mcp in both protocol eras', () => {
  let t: TestApp;
  let a: TenantKey;

  beforeAll(async () => {
    t = await startTestApp();
    a = await makeTenant(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const headers = () => ({ authorization: `Bearer ${a.key}` });

  async function modernClient(mode: 'auto' | { pin: string }): Promise<Client2> {
    const client = new Client2({ name: 'eras-2x', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new Transport2(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: headers() } }));
    return client;
  }

  it('serves the 2.x client pinned to 2026-07-28 and in auto mode', async () => {
    for (const mode of [{ pin: '2026-07-28' }, 'auto' as const]) {
      const client = await modernClient(mode);
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(TOOLS);
      const listed = await client.callTool({ name: 'list_servers', arguments: {} });
      expect(listed.isError).toBeFalsy();
      await client.close();
    }
  });

  it('serves the 1.x client', async () => {
    const client = new Client({ name: 'eras-1x', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: headers() } }));
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(TOOLS);
    await client.close();
  });
});
