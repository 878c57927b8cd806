import { PipedreamStandIn, startPipedreamStandIn } from '../fixtures/pipedream-stand-in';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, TenantKey } from '../support/tenants';

/**
 * The whole INTEGRATION path with the discovery worker running: a tenant
 * connects an app, the worker reaches the Pipedream stand-in with a
 * client-credentials token and the x-pd-* headers of that tenant, and the
 * registry answers with what the server offers.
 */
describe('an INTEGRATION server discovered through Pipedream Connect (local stand-in)', () => {
  let t: TestApp;
  let pd: PipedreamStandIn;
  let a: TenantKey;
  let b: TenantKey;
  const clientSecret = `pd-secret-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    pd = await startPipedreamStandIn({ clientId: 'pd-client', clientSecret, projectId: 'proj_e2e', environment: 'production' });
    t = await startTestApp({
      worker: true,
      env: pd.env,
    });
    a = await makeTenant(t);
    b = await makeTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await pd?.close();
  });

  async function settled(key: string, id: string): Promise<Record<string, any>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await t.request('GET', `/api/v1/servers/${id}`, { key });
      if (res.body.status !== 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING' || Date.now() > deadline) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('discovers each tenant’s integration as that tenant, with one token', async () => {
    const slackA = (await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack', accountId: 'apn_a' } })).body;
    const slackB = (await t.request('POST', '/api/v1/integrations', { key: b.key, body: { appSlug: 'slack' } })).body;
    expect((await settled(a.key, slackA.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    expect((await settled(b.key, slackB.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');

    const info = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { key: a.key, body: { serverId: slackA.id } });
    expect(info.body).toMatchObject({
      serverId: slackA.id,
      version: '1.0.0',
      capabilities: ['tools'],
      status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
      kind: 'MCP_SERVER_KIND_INTEGRATION',
    });
    expect(info.body.availableTools.map((x: { name: string }) => x.name)).toEqual(['slack-whoami', 'slack-send-message']);

    const posts = pd.mcpRequests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    for (const r of posts) {
      expect(r).toMatchObject({ tokenValid: true, projectId: 'proj_e2e', environment: 'production', appSlug: 'slack' });
    }
    expect(new Set(posts.map((r) => r.externalUserId))).toEqual(new Set([a.tenantId, b.tenantId]));
    expect(posts.filter((r) => r.externalUserId === a.tenantId).every((r) => r.accountId === 'apn_a')).toBe(true);
    expect(posts.filter((r) => r.externalUserId === b.tenantId).every((r) => r.accountId === undefined)).toBe(true);
    expect(pd.refusals).toEqual([]);
    expect(pd.tokensIssued).toBe(1);
    expect(t.logs()).not.toContain(clientSecret);
    for (const token of pd.issuedTokens()) expect(t.logs()).not.toContain(token);
    const runs = await t.request('GET', `/api/v1/servers/${slackA.id}/discoveries`, { key: a.key });
    expect(runs.body.runs[0]).toMatchObject({ outcome: 'SUCCEEDED', toolCount: 2, added: ['slack-whoami', 'slack-send-message'] });
  });

  it('gets a fresh token when Pipedream refuses a cached one (revoked before its expiry), and discovers with it', async () => {
    const slack = (await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack', accountId: 'apn_again' } })).body;
    expect((await settled(a.key, slack.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    const issued = pd.tokensIssued;
    pd.revokeTokens();
    expect((await t.request('POST', `/api/v1/servers/${slack.id}/discover`, { key: a.key })).status).toBe(202);
    const deadline = Date.now() + 20_000;
    let runs: { outcome: string; error: string | null }[] = [];
    while (Date.now() < deadline) {
      runs = (await t.request('GET', `/api/v1/servers/${slack.id}/discoveries`, { key: a.key })).body.runs;
      if (runs[0]?.outcome === 'SUCCEEDED' && runs.length >= 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Newest first: the attempt with the new token succeeded after the one whose token was refused.
    expect(runs[0].outcome).toBe('SUCCEEDED');
    expect(runs[1]).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/401 Unauthorized/) });
    expect(pd.tokensIssued).toBe(issued + 1);
    expect((await settled(a.key, slack.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
  });
});
