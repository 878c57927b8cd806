import { startPipedreamStandIn } from '../fixtures/pipedream-stand-in';
import { startTestApp } from '../support/app';
import { useStand } from '../support/stand';
import { makeTenant } from '../support/tenants';

/**
 * The whole INTEGRATION path with the discovery worker running: a tenant
 * connects an app, the worker reaches the Pipedream stand-in with a
 * client-credentials token and the x-pd-* headers of that tenant, and the
 * registry answers with what the server offers.
 */
describe('an INTEGRATION server discovered through Pipedream Connect (local stand-in)', () => {
  const clientSecret = `pd-secret-${Math.random().toString(36).slice(2)}`;
  const s = useStand(async (keep) => {
    const pd = keep(await startPipedreamStandIn({ clientId: 'pd-client', clientSecret, projectId: 'proj_e2e', environment: 'production' }));
    const t = keep(await startTestApp({ worker: true, env: pd.env }));
    return { pd, t, a: await makeTenant(t), b: await makeTenant(t) };
  });

  async function settled(key: string, id: string): Promise<Record<string, any>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await s.t.request('GET', `/api/v1/servers/${id}`, { key });
      if (res.body.status !== 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING' || Date.now() > deadline) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('discovers each tenant’s integration as that tenant, with one token', async () => {
    const slackA = (await s.t.request('POST', '/api/v1/integrations', { key: s.a.key, body: { appSlug: 'slack', accountId: 'apn_a' } })).body;
    const slackB = (await s.t.request('POST', '/api/v1/integrations', { key: s.b.key, body: { appSlug: 'slack' } })).body;
    expect((await settled(s.a.key, slackA.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    expect((await settled(s.b.key, slackB.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');

    const info = await s.t.request('POST', '/api/v1/llm/mcp-get-server-info', { key: s.a.key, body: { serverId: slackA.id } });
    expect(info.body).toMatchObject({
      serverId: slackA.id,
      version: '1.0.0',
      capabilities: ['tools'],
      status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
      kind: 'MCP_SERVER_KIND_INTEGRATION',
    });
    expect(info.body.availableTools.map((x: { name: string }) => x.name)).toEqual(['slack-whoami', 'slack-send-message']);

    const posts = s.pd.mcpRequests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    for (const r of posts) {
      expect(r).toMatchObject({ tokenValid: true, projectId: 'proj_e2e', environment: 'production', appSlug: 'slack' });
    }
    expect(new Set(posts.map((r) => r.externalUserId))).toEqual(new Set([s.a.tenantId, s.b.tenantId]));
    expect(posts.filter((r) => r.externalUserId === s.a.tenantId).every((r) => r.accountId === 'apn_a')).toBe(true);
    expect(posts.filter((r) => r.externalUserId === s.b.tenantId).every((r) => r.accountId === undefined)).toBe(true);
    expect(s.pd.refusals).toEqual([]);
    expect(s.pd.tokensIssued).toBe(1);
    expect(s.t.logs()).not.toContain(clientSecret);
    for (const token of s.pd.issuedTokens()) expect(s.t.logs()).not.toContain(token);
    const runs = await s.t.request('GET', `/api/v1/servers/${slackA.id}/discoveries`, { key: s.a.key });
    expect(runs.body.runs[0]).toMatchObject({ outcome: 'SUCCEEDED', toolCount: 2, added: ['slack-whoami', 'slack-send-message'] });
  });

  it('gets a fresh token when Pipedream refuses a cached one (revoked before its expiry), and discovers with it', async () => {
    const slack = (await s.t.request('POST', '/api/v1/integrations', { key: s.a.key, body: { appSlug: 'slack', accountId: 'apn_again' } })).body;
    expect((await settled(s.a.key, slack.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    const issued = s.pd.tokensIssued;
    s.pd.revokeTokens();
    expect((await s.t.request('POST', `/api/v1/servers/${slack.id}/discover`, { key: s.a.key })).status).toBe(202);
    const deadline = Date.now() + 20_000;
    let runs: { outcome: string; error: string | null }[] = [];
    while (Date.now() < deadline) {
      runs = (await s.t.request('GET', `/api/v1/servers/${slack.id}/discoveries`, { key: s.a.key })).body.runs;
      if (runs[0]?.outcome === 'SUCCEEDED' && runs.length >= 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Newest first: the attempt with the new token succeeded after the one whose token was refused.
    expect(runs[0].outcome).toBe('SUCCEEDED');
    expect(runs[1]).toMatchObject({ outcome: 'FAILED', error: expect.stringMatching(/401 Unauthorized/) });
    expect(s.pd.tokensIssued).toBe(issued + 1);
    expect((await settled(s.a.key, slack.id)).status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
  });
});
