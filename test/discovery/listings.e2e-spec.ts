import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { failingListings, hugeResourcePage, resourceFlood, stdioFixture } from '../fixtures/hostile-servers';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { everythingStdio } from '../fixtures/reference-servers';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, registerServer, settled, waitFor } from '../support/servers';

type Item = Record<string, unknown>;

/** What a plain SDK client lists of a stdio server: every page of resources, templates and prompts. */
async function plainSdkListings(target: { command: string; args: string[] }): Promise<{ resources: Item[]; resourceTemplates: Item[]; prompts: Item[] }> {
  const client = new Client({ name: 'plain-sdk-client', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ ...target, stderr: 'ignore' }));
  try {
    const all = async <K extends string>(list: (cursor?: string) => Promise<{ nextCursor?: string } & Record<K, Item[]>>, field: K) => {
      const out: Item[] = [];
      let cursor: string | undefined;
      do {
        const page = await list(cursor);
        out.push(...page[field]);
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    };
    return {
      resources: await all((cursor) => client.listResources(cursor ? { cursor } : undefined), 'resources'),
      resourceTemplates: await all((cursor) => client.listResourceTemplates(cursor ? { cursor } : undefined), 'resourceTemplates'),
      prompts: await all((cursor) => client.listPrompts(cursor ? { cursor } : undefined), 'prompts'),
    };
  } finally {
    await client.close();
  }
}

describe('discovery lists resources, resource templates and prompts', () => {
  let t: TestApp;
  const fixtures: RawServer[] = [];

  beforeAll(async () => {
    // Lists besides tools get 75% of the discovery's time: a server that never answers prompts/list loses that list
    // after 4.5 s, and keeps its tools.
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '6000', DISCOVERY_ATTEMPTS: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(fixtures.map((f) => f.close()));
  });

  /** Every page of one REST list, `pageSize` at a time. */
  async function pagesOf(id: string, path: string, field: string, pageSize: number, key?: string): Promise<{ items: Item[]; pages: number }> {
    const items: Item[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = await t.request('GET', `/api/v1/servers/${id}/${path}?pageSize=${pageSize}${token ? `&pageToken=${token}` : ''}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.serverId).toBe(id);
      items.push(...res.body[field]);
      token = res.body.nextPageToken;
      pages++;
    } while (token);
    return { items, pages };
  }

  it('stores exactly what a plain SDK client lists of server-everything (stdio), shows it paged, and counts it in the server view and MCPServerInfo', async () => {
    const server = await registerServer(t, { name: 'everything-listings', kind: 'BUILT_IN', transport: 'stdio', ...everythingStdio() });
    const [row, plain] = await Promise.all([settled(t, server.id, 30_000), plainSdkListings(everythingStdio())]);
    expect([row.status, row.statusReason]).toEqual(['CONNECTED', null]);
    expect(plain.resources.length).toBeGreaterThan(2);
    expect(plain.resourceTemplates.length).toBeGreaterThan(0);
    expect(plain.prompts.length).toBeGreaterThan(2);

    // Two to a page: several REST pages, together exactly the server's lists in its order.
    const resources = await pagesOf(server.id, 'resources', 'resources', 2);
    const templates = await pagesOf(server.id, 'resource-templates', 'resourceTemplates', 2);
    const prompts = await pagesOf(server.id, 'prompts', 'prompts', 2);
    expect(resources.items).toEqual(plain.resources);
    expect(templates.items).toEqual(plain.resourceTemplates);
    expect(prompts.items).toEqual(plain.prompts);
    expect(resources.pages).toBe(Math.ceil(plain.resources.length / 2));

    const view = await t.request('GET', `/api/v1/servers/${server.id}`);
    expect(view.body).toMatchObject({
      resourceCount: plain.resources.length,
      resourceTemplateCount: plain.resourceTemplates.length,
      promptCount: plain.prompts.length,
      listingErrors: null,
    });
    const info = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { body: { serverId: server.id } });
    expect(info.status).toBe(200);
    expect(info.body.metadata).toEqual({
      'dev.mcp-registry/resources': String(plain.resources.length),
      'dev.mcp-registry/resource-templates': String(plain.resourceTemplates.length),
      'dev.mcp-registry/prompts': String(plain.prompts.length),
    });
    const listed = await t.request('POST', '/api/v1/llm/mcp-list-servers', { body: {} });
    const mine = listed.body.servers.find((s: { serverId: string }) => s.serverId === server.id);
    expect(mine.metadata['dev.mcp-registry/prompts']).toBe(String(plain.prompts.length));
  });

  it('follows every page of each list (45 resources, 7 templates, 23 prompts, 4 a page), in order', async () => {
    const server = await registerServer(t, { name: 'paged-listings', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('paginated-listings.cjs', '45', '7', '23', '4') });
    const row = await settled(t, server.id);
    expect([row.status, row.toolCount, row.resourceCount, row.resourceTemplateCount, row.promptCount, row.listingErrors]).toEqual(['CONNECTED', 1, 45, 7, 23, null]);
    const resources = await pagesOf(server.id, 'resources', 'resources', 100);
    expect(resources.items.map((r) => r.uri)).toEqual(Array.from({ length: 45 }, (_, i) => `paged://doc/${String(i).padStart(3, '0')}`));
    const prompts = await pagesOf(server.id, 'prompts', 'prompts', 10);
    expect(prompts.pages).toBe(3);
    expect(prompts.items.map((p) => p.name)).toEqual(Array.from({ length: 23 }, (_, i) => `prompt_${String(i).padStart(3, '0')}`));
    expect((await pagesOf(server.id, 'resource-templates', 'resourceTemplates', 3)).items).toHaveLength(7);
  });

  it('keeps at most 10,000 resources of a server whose resources/list never ends, with its tools and a reason', async () => {
    const flood = await resourceFlood(1000);
    fixtures.push(flood);
    const server = await registerServer(t, { name: 'resource-flood', kind: 'BUILT_IN', transport: 'streamable-http', url: flood.url });
    const row = await settled(t, server.id);
    expect([row.status, row.statusReason, row.toolCount, row.resourceCount, row.resourceTemplateCount, row.promptCount]).toEqual(['CONNECTED', null, 2, 10_000, 1, 1]);
    expect(row.listingErrors).toEqual({ 'resources/list': expect.stringMatching(/^the server lists more than 10000 resources, .*the first 10000 are kept$/) });
    const tools = await t.request('GET', `/api/v1/servers/${server.id}/tools`);
    expect(tools.body.tools.map((x: { name: string }) => x.name)).toEqual(['kept_one', 'kept_two']);
    const count = await t.runtime.prisma.serverListing.count({ where: { serverId: server.id, kind: 'resource' } });
    expect(count).toBe(10_000);
    const view = await t.request('GET', `/api/v1/servers/${server.id}`);
    expect(view.body.listingErrors['resources/list']).toContain('more than 10000 resources');
  });

  it('keeps the tools of a server whose resources/list fails and whose prompts/list never answers, each list with its reason', async () => {
    const failing = await failingListings();
    fixtures.push(failing);
    const started = Date.now();
    const server = await registerServer(t, { name: 'failing-listings', kind: 'BUILT_IN', transport: 'streamable-http', url: failing.url });
    const row = await settled(t, server.id);
    expect([row.status, row.statusReason, row.toolCount]).toEqual(['CONNECTED', null, 1]);
    // Unknown lists are null, not zero; a server without templates (method not found) has none, without a reason.
    expect([row.resourceCount, row.resourceTemplateCount, row.promptCount]).toEqual([null, 0, null]);
    expect(row.listingErrors).toEqual({
      'resources/list': expect.stringContaining('resource index offline'),
      'prompts/list': 'no complete answer to prompts/list within 4500 ms of the discovery\'s start, the time it gives the lists besides tools',
    });
    expect(Date.now() - started).toBeLessThan(6000 + 3000);
    const info = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { body: { serverId: server.id } });
    expect(info.body.status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    expect(info.body.availableTools.map((x: { name: string }) => x.name)).toEqual(['still_here']);
    expect(info.body.metadata).toEqual({ 'dev.mcp-registry/resource-templates': '0' });
  });

  it('keeps the tools of a server whose resources/list page is larger than the discovery byte budget', async () => {
    const huge = await hugeResourcePage(24);
    fixtures.push(huge);
    const server = await registerServer(t, { name: 'huge-resource-page', kind: 'BUILT_IN', transport: 'streamable-http', url: huge.url });
    const row = await settled(t, server.id);
    expect([row.status, row.toolCount, row.resourceCount]).toEqual(['CONNECTED', 1, null]);
    expect((row.listingErrors as Record<string, string>)['resources/list']).toMatch(/more than 16 MiB during one discovery/);
    const [run] = await t.runtime.prisma.discoveryRun.findMany({ where: { serverId: server.id } });
    expect(run.outcome).toBe('SUCCEEDED');
  });

  it('does not ask a server that does not declare the lists, and clears what it had once it stops declaring them; another tenant sees none of it', async () => {
    const tenant = await makeTenant(t);
    const capabilities: Record<string, unknown> = { tools: {}, resources: {}, prompts: {} };
    const asked: string[] = [];
    const server = await startRawServer({
      name: 'declares-then-not',
      capabilities,
      onToolsList: () => ({ result: { tools: [sampleTool('steady')] } }),
      onRequest: (req) => {
        asked.push(req.method);
        if (req.method === 'resources/list') return { result: { resources: [{ uri: 'once://a', name: 'a' }, { uri: 'once://b', name: 'b' }] } };
        if (req.method === 'prompts/list') return { result: { prompts: [{ name: 'once' }] } };
        return undefined;
      },
    });
    fixtures.push(server);
    const registered = await registerServer(t, { name: 'declares-then-not', transport: 'streamable-http', url: server.url }, tenant.key);
    const first = await settled(t, registered.id);
    expect([first.resourceCount, first.resourceTemplateCount, first.promptCount]).toEqual([2, 0, 1]);
    const page = await t.request('GET', `/api/v1/servers/${registered.id}/resources?pageSize=1`, { key: tenant.key });
    expect(page.body.resources).toEqual([{ uri: 'once://a', name: 'a' }]);
    expect(page.body.nextPageToken).toEqual(expect.any(String));
    // A page token is bound to its server and list.
    const replayed = await t.request('GET', `/api/v1/servers/${registered.id}/prompts?pageToken=${page.body.nextPageToken}`, { key: tenant.key });
    expect(replayed.status).toBe(400);
    // Another tenant: 404 for the server's lists, as for the server.
    const other = await makeTenant(t);
    for (const path of ['resources', 'resource-templates', 'prompts']) {
      expect((await t.request('GET', `/api/v1/servers/${registered.id}/${path}`, { key: other.key })).status).toBe(404);
    }

    // The server stops declaring resources and prompts: the next discovery asks for neither and clears them.
    delete capabilities.resources;
    delete capabilities.prompts;
    asked.length = 0;
    expect((await t.request('POST', `/api/v1/servers/${registered.id}/discover`, { key: tenant.key })).status).toBe(202);
    const second = await waitFor('the second discovery', async () => {
      const row = await settled(t, registered.id);
      return row.lastDiscoveredAt! > first.lastDiscoveredAt! ? row : undefined;
    });
    expect([second.status, second.toolCount, second.resourceCount, second.resourceTemplateCount, second.promptCount, second.listingErrors]).toEqual([
      'CONNECTED',
      1,
      null,
      null,
      null,
      null,
    ]);
    expect(await t.runtime.prisma.serverListing.count({ where: { serverId: registered.id } })).toBe(0);
    expect(asked.filter((m) => m !== 'notifications/initialized')).toEqual([]);
    const info = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { key: tenant.key, body: { serverId: registered.id } });
    expect(info.body.metadata).toEqual({});
  });

  it("stores the lists cleaned of the server's own credentials and of what PostgreSQL cannot hold, and leaves out what breaks the bounds", async () => {
    const tenant = await makeTenant(t);
    const secret = 'sk-listing-' + 'q7Zx9'.repeat(6);
    const server = await startRawServer({
      name: 'echoes-into-listings',
      capabilities: { tools: {}, resources: {}, prompts: {} },
      onToolsList: () => ({ result: { tools: [sampleTool('plain')] } }),
      onRequest: (req) => {
        if (req.method === 'resources/list') {
          return {
            result: {
              resources: [
                { uri: `echo://a?key=${secret}`, name: 'a', description: `sent me Bearer ${secret} and ${Buffer.from(secret).toString('base64')}` },
                { uri: 'echo://nul', name: 'nul\u0000byte' },
                { uri: 'echo://big', name: 'big', description: 'x'.repeat(70 * 1024) },
                { name: 'no uri' },
                { uri: 'echo://a-dup', name: 'first' },
                { uri: 'echo://a-dup', name: 'second' },
              ],
            },
          };
        }
        if (req.method === 'prompts/list') return { result: { prompts: [{ name: 'p', description: `token ${secret}` }] } };
        return undefined;
      },
    });
    fixtures.push(server);
    const registered = await registerServer(t, { name: 'echoes-into-listings', transport: 'streamable-http', url: server.url, credentials: { bearerToken: secret } }, tenant.key);
    const row = await settled(t, registered.id);
    expect([row.status, row.resourceCount, row.promptCount]).toEqual(['CONNECTED', 3, 1]);
    const resources = await pagesOf(registered.id, 'resources', 'resources', 10, tenant.key);
    const prompts = await pagesOf(registered.id, 'prompts', 'prompts', 10, tenant.key);
    const stored = JSON.stringify([resources.items, prompts.items, row.listingErrors]);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(Buffer.from(secret).toString('base64'));
    expect(resources.items).toEqual([
      { uri: 'echo://a?key=[redacted]', name: 'a', description: 'sent me [redacted] and [redacted]' },
      { uri: 'echo://nul', name: 'nulbyte' },
      { uri: 'echo://a-dup', name: 'first' },
    ]);
    expect(prompts.items).toEqual([{ name: 'p', description: 'token [redacted]' }]);
    expect(row.listingErrors).toEqual({ 'resources/list': '3 of the listed resources were left out (the first: resources[2]: the entry is larger than 64 KiB)' });
  });
});
