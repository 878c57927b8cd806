import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PipedreamStandIn, startPipedreamStandIn } from '../fixtures/pipedream-stand-in';
import { expectProblem, makeTenant, TenantKey } from '../support/tenants';
import { startTestApp, TestApp } from '../support/app';
import { CallFixture, startCallFixture } from './call-fixtures';
import { eventually, registerAndDiscover } from './helpers';

/**
 * Calls reach each kind of server with the credentials that kind demands: the platform's (an environment
 * variable) for BUILT_IN, the registration's for EXTERNAL, Pipedream's token and the tenant's x-pd-* headers for
 * INTEGRATION. (CUSTOM and INTERNAL: tool-calls.e2e-spec.ts.)
 */
describe('tool calls routed by kind', () => {
  let t: TestApp;
  let fixture: CallFixture;
  let pd: PipedreamStandIn;
  let a: TenantKey;
  let b: TenantKey;
  const platformToken = `platform-token-${Math.random().toString(36).slice(2)}`;
  const externalToken = `external-token-${Math.random().toString(36).slice(2)}`;
  const clientSecret = `pd-secret-${Math.random().toString(36).slice(2)}`;

  beforeAll(async () => {
    fixture = await startCallFixture();
    pd = await startPipedreamStandIn({ clientId: 'pd-client', clientSecret, projectId: 'proj_calls', environment: 'production' });
    const file = join(tmpdir(), `external-${process.pid}-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify([{ name: 'legacy-tools', transport: 'streamable-http', url: fixture.url, credentials: { bearerToken: externalToken } }]));
    // BUILT_IN credentials given as {env: VAR} are read from the environment of the process that connects.
    process.env.MCP_SECRET_LLM_ROUTING_TOKEN = platformToken;
    t = await startTestApp({
      env: {
        EXTERNAL_SERVERS_FILE: file,
        ...pd.env,
      },
    });
    a = await makeTenant(t);
    b = await makeTenant(t);
  });

  afterAll(async () => {
    await t?.close();
    await fixture?.close();
    await pd?.close();
    delete process.env.MCP_SECRET_LLM_ROUTING_TOKEN;
  });

  const call = (key: string, body: Record<string, unknown>) => t.request('POST', '/api/v1/llm/mcp-call-tool', { key, body });

  it("calls a BUILT_IN server with the platform's credentials, for any tenant", async () => {
    const server = await registerAndDiscover(t, {
      name: 'platform-tools',
      kind: 'MCP_SERVER_KIND_BUILT_IN',
      transport: 'streamable-http',
      url: fixture.url,
      credentials: { env: 'MCP_SECRET_LLM_ROUTING_TOKEN' },
    });
    expect(server.status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    for (const key of [a.key, b.key]) {
      const res = await call(key, { serverId: server.id, toolName: 'whoami' });
      expect(res.body).toEqual({ content: [{ type: 'text', text: `Bearer ${platformToken}` }] });
    }
  });

  it('calls an EXTERNAL server as its registration says', async () => {
    const list = await t.request('GET', '/api/v1/servers?kind=MCP_SERVER_KIND_EXTERNAL', { key: a.key });
    const external = list.body.servers.find((s: { name: string }) => s.name === 'legacy-tools');
    await eventually('the external server connected', async () => {
      const s = await t.request('GET', `/api/v1/servers/${external.id}`, { key: a.key });
      return s.body.status === 'MCP_SERVER_CONNECTION_STATUS_CONNECTED';
    });
    const res = await call(a.key, { serverId: external.id, toolName: 'whoami' });
    expect(res.body).toEqual({ content: [{ type: 'text', text: `Bearer ${externalToken}` }] });
  });

  it("calls an INTEGRATION server with Pipedream's token and the tenant's account, and no other tenant can", async () => {
    const created = await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack', accountId: 'apn_calls' } });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    await eventually('the integration connected', async () => {
      const s = await t.request('GET', `/api/v1/servers/${id}`, { key: a.key });
      return s.body.status === 'MCP_SERVER_CONNECTION_STATUS_CONNECTED';
    });
    const before = pd.mcpRequests.length;
    const res = await call(a.key, { serverId: id, toolName: 'slack-whoami' });
    expect(res.status).toBe(200);
    expect(res.body.structuredContent).toEqual({ externalUserId: a.tenantId, appSlug: 'slack', accountId: 'apn_calls' });
    const seen = pd.mcpRequests.slice(before).filter((r) => r.method === 'POST');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.tokenValid && r.projectId === 'proj_calls' && r.environment === 'production' && r.accountId === 'apn_calls')).toBe(true);

    expectProblem(await call(b.key, { serverId: id, toolName: 'slack-whoami' }), 404);
    const logs = t.logs();
    for (const secret of [clientSecret, platformToken, externalToken, ...pd.issuedTokens()]) expect(logs).not.toContain(secret);
  });
});
