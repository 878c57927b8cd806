import { pipedreamRequestHeaders, PipedreamTokenProvider } from '@app/mcp';
import { DiscoveryProducer, QueueName } from '@app/queue';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PipedreamStandIn, startPipedreamStandIn } from '../fixtures/pipedream-stand-in';
import { startTestApp, TestApp, useTestApp } from '../support/app';
import { expectProblem, fields, makeTenant, TenantKey, watchSecrets } from '../support/tenants';

describe('integrations without Pipedream configuration', () => {
  const t = useTestApp({ worker: false });

  it('answers a clear 422 naming what the operator must set', async () => {
    const a = await makeTenant(t);
    const res = await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack' } });
    expectProblem(res, 422);
    expect(res.body.detail).toContain('PIPEDREAM_CLIENT_ID');
    expect((await t.request('GET', '/api/v1/servers?kind=5', { key: a.key })).body.servers).toEqual([]);
  });
});

describe('integrations through Pipedream Connect (local stand-in)', () => {
  let t: TestApp;
  let pd: PipedreamStandIn;
  let a: TenantKey;
  let b: TenantKey;
  let secrets: ReturnType<typeof watchSecrets>;
  const clientSecret = `pd-client-secret-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    pd = await startPipedreamStandIn({ clientId: 'pd-client', clientSecret, projectId: 'proj_test', environment: 'development' });
    t = await startTestApp({
      worker: false,
      env: pd.env,
    });
    secrets = watchSecrets(t);
    a = await makeTenant(t);
    b = await makeTenant(t);
  });
  afterAll(async () => {
    expect(secrets.leaks()).toEqual([]);
    expect(t.logs()).not.toContain(clientSecret);
    await t?.close();
    await pd?.close();
  });

  /** An MCP client that reaches Pipedream as the connector does: a current token and the x-pd-* headers on every request. */
  async function connect(tokens: PipedreamTokenProvider, server: { tenantId: string; appSlug: string; accountId: string | null }): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(pd.mcpUrl), {
      fetch: async (url, init) => {
        const headers = new Headers(init?.headers);
        for (const [k, v] of Object.entries(await pipedreamRequestHeaders(t.config.pipedream!, server, tokens))) headers.set(k, v);
        return fetch(url, { ...init, headers });
      },
    });
    const client = new Client({ name: 'registry-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('creates an INTEGRATION server for the tenant and queues its discovery', async () => {
    const res = await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack', accountId: 'apn_a1' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'pipedream-slack-apn_a1',
      kind: 'MCP_SERVER_KIND_INTEGRATION',
      transport: 'streamable-http',
      url: pd.mcpUrl,
      appSlug: 'slack',
      accountId: 'apn_a1',
      tenantId: a.tenantId,
      hasCredentials: false,
      status: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING',
    });
    const queue = t.runtime.queue.createQueue(QueueName.Discovery);
    expect((await queue.getJob(DiscoveryProducer.jobId(res.body.id)))?.data).toEqual({ serverId: res.body.id, trigger: 'registered' });
    expectProblem(await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack', accountId: 'apn_a1' } }), 409);
    expectProblem(await t.request('GET', `/api/v1/servers/${res.body.id}`, { key: b.key }), 404);
    const audit = await t.request('GET', `/api/v1/audit?resourceId=${res.body.id}`);
    expect(audit.body.events.map((e: { action: string }) => e.action)).toEqual(['integration.create']);
  });

  it('refuses the admin key, bad slugs and unknown fields', async () => {
    expectProblem(await t.request('POST', '/api/v1/integrations', { body: { appSlug: 'slack' } }), 403);
    for (const body of [{}, { appSlug: '' }, { appSlug: 'sl ack' }, { appSlug: 'x'.repeat(101) }, { appSlug: 'slack', accountId: 'a/b' }, { appSlug: 'slack', url: 'https://x.example.com' }]) {
      const res = await t.request('POST', '/api/v1/integrations', { key: a.key, body });
      expectProblem(res, 400);
      expect(fields(res.body).length).toBeGreaterThan(0);
    }
  });

  it('lets the owner rename or disable it, but not change how Pipedream is reached', async () => {
    const created = await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'notion' } });
    const renamed = await t.request('PATCH', `/api/v1/servers/${created.body.id}`, { key: a.key, body: { name: 'my notion', metadata: { x: 'y' } } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('my notion');
    const res = await t.request('PATCH', `/api/v1/servers/${created.body.id}`, { key: a.key, body: { url: 'https://evil.example.com/mcp', credentials: { bearerToken: secrets.secret('x') } } });
    expectProblem(res, 400);
    expect(fields(res.body).sort()).toEqual(['credentials', 'url']);
  });

  it('reaches Pipedream with the right headers, one token for every connection, and each tenant as itself', async () => {
    const tokens = new PipedreamTokenProvider(t.config.pipedream!);
    const servers = (await t.request('GET', '/api/v1/servers?kind=MCP_SERVER_KIND_INTEGRATION', { key: a.key })).body.servers;
    const slackA = servers.find((s: { appSlug: string }) => s.appSlug === 'slack');
    const mine = await t.request('POST', '/api/v1/integrations', { key: b.key, body: { appSlug: 'slack' } });
    const before = pd.mcpRequests.length;

    const clientA = await connect(tokens, slackA);
    const listed = await clientA.listTools();
    expect(listed.tools.map((x) => x.name)).toEqual(['slack-whoami', 'slack-send-message']);
    const whoA = await clientA.callTool({ name: 'slack-whoami', arguments: {} });
    expect(whoA.structuredContent).toEqual({ externalUserId: a.tenantId, appSlug: 'slack', accountId: 'apn_a1' });
    await clientA.close();

    const clientB = await connect(tokens, mine.body);
    const whoB = await clientB.callTool({ name: 'slack-whoami', arguments: {} });
    expect(whoB.structuredContent).toEqual({ externalUserId: b.tenantId, appSlug: 'slack', accountId: null });
    await clientB.close();

    const seen = pd.mcpRequests.slice(before);
    expect(seen.length).toBeGreaterThanOrEqual(6);
    for (const r of seen.filter((x) => x.method === 'POST')) {
      expect(r).toMatchObject({ tokenValid: true, projectId: 'proj_test', environment: 'development', appSlug: 'slack' });
      expect([a.tenantId, b.tenantId]).toContain(r.externalUserId);
    }
    expect(pd.refusals).toEqual([]);
    expect(tokens.fetchCount).toBe(1);
    expect(pd.tokensIssued).toBe(1);
  });

  it('is refused by Pipedream with a wrong client secret, and by its MCP server without the headers', async () => {
    const wrong = new PipedreamTokenProvider({ ...t.config.pipedream!, clientSecret: 'not-the-secret' });
    await expect(wrong.getToken()).rejects.toThrow('HTTP 401');
    const bare = await fetch(pd.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(bare.status).toBe(401);
    const tokens = new PipedreamTokenProvider(t.config.pipedream!);
    const noProject = await fetch(pd.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await tokens.getToken()}`, 'x-pd-environment': 'development' },
      body: '{}',
    });
    expect(noProject.status).toBe(403);
  });
});
