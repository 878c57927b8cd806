import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { sdk1Client } from '../support/mcp-clients';
import { registerServer, settled, waitFor } from '../support/servers';
import { McpChangeStreams } from '../../apps/api/src/mcp/mcp-change-streams.service';

/** Two API replicas on one database: a virtual server changed through one is announced to a client of the other. */
describe('a virtual server changed through another replica', () => {
  let one: TestApp;
  let two: TestApp;
  let fixture: RawServer;
  let alpha: string;
  let beta: string;
  let virtualId: string;

  beforeAll(async () => {
    fixture = await startRawServer({ onToolsList: () => ({ result: { tools: [sampleTool('lookup'), sampleTool('store')] } }) });
    one = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    // The same admin key on both (the second replica's own generated key is not used).
    two = await startTestApp({ database: one.database, worker: false, queuePrefix: one.queuePrefix, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', ADMIN_API_KEY: one.adminKey } });
    alpha = (await registerServer(one, { name: 'alpha', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url })).id;
    beta = (await registerServer(one, { name: 'beta', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url })).id;
    for (const id of [alpha, beta]) expect((await settled(one, id)).status).toBe('CONNECTED');
    virtualId = (await one.request('POST', '/api/v1/virtual-servers', { body: { name: 'pair', servers: [alpha, beta] } })).body.id;
    await waitFor('both listed on the second replica', async () => (await two.request('GET', `/api/v1/virtual-servers/${virtualId}/tools`, { key: one.adminKey })).body.tools?.length === 4);
  }, 60_000);
  afterAll(async () => {
    await two?.close();
    await one?.close();
    await fixture?.close();
  });

  it('tells a 2025-era client of the second replica within seconds, and lists the new tools there', async () => {
    const client = await sdk1Client(`${two.baseUrl}/mcp/v/${virtualId}`, one.adminKey);
    let told = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      told = true;
    });
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual(['alpha__lookup', 'alpha__store', 'beta__lookup', 'beta__store']);
      await waitFor('the stream held by the second replica', async () => two.app.get(McpChangeStreams, { strict: false }).size > 0, 10_000, 50);
      const started = Date.now();
      // Through the first replica: no catalog change is involved (the members themselves did not change).
      expect((await one.request('PATCH', `/api/v1/virtual-servers/${virtualId}`, { body: { tools: [{ serverId: beta, toolName: 'store' }] } })).status).toBe(200);
      await waitFor('list_changed on the second replica', async () => told, 10_000, 50);
      const tookMs = Date.now() - started;
      expect(tookMs).toBeLessThan(5000);
      process.stdout.write(`\nlist_changed on the other replica after a change of the virtual server: ${tookMs} ms\n`);
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual(['beta__store']);
    } finally {
      await client.close();
    }
  }, 30_000);
});
