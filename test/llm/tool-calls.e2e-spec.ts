import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolCallService } from '../../apps/api/src/llm-tools/tool-call.service';
import { expectProblem, makeTenant } from '../support/tenants';
import { useStand } from '../support/stand';
import { startTestApp, TestApp } from '../support/app';
import { hasPostgres, redisUrl } from '../support/database';
import { CONNECT_LINK, startCallFixture, startEverything } from './call-fixtures';
import { eventually, mcpClient, registerAndDiscover } from './helpers';

const CALL_TIMEOUT_MS = 1000;
const CALL_MAX_TIMEOUT_MS = 3000;

describe('tool calls through mcp-call-tool and call_tool', () => {
  const s = useStand(async (keep) => {
    const [everything, fixture] = await Promise.all([startEverything(), startCallFixture()]);
    keep(fixture);
    keep(everything);
    const t = keep(
      await startTestApp({
        env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS), CALL_MAX_TIMEOUT_MS: String(CALL_MAX_TIMEOUT_MS) },
      }),
    );
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const ev = await registerAndDiscover(t, { name: 'everything', transport: 'streamable-http', url: everything.url }, a.key);
    const fx = await registerAndDiscover(
      t,
      { name: 'call-fixture', transport: 'streamable-http', url: fixture.url, credentials: { bearerToken: 'tenant-a-upstream-token' } },
      a.key,
    );
    expect([ev.status, fx.status]).toEqual(['MCP_SERVER_CONNECTION_STATUS_CONNECTED', 'MCP_SERVER_CONNECTION_STATUS_CONNECTED']);
    const client = keep(await mcpClient(t, a.key));
    return { t, everything, fixture, a, b, everythingId: ev.id, fixtureId: fx.id, client };
  });

  const call = (key: string, body: Record<string, unknown>) => s.t.request('POST', '/api/v1/llm/mcp-call-tool', { key, body });

  it('returns what a direct SDK call of echo on server-everything returns, through the RPC API and through call_tool', async () => {
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StreamableHTTPClientTransport(new URL(s.everything.url)));
    const expected = await direct.callTool({ name: 'echo', arguments: { message: 'hello from the registry' } });
    await direct.close();

    const rpc = await call(s.a.key, { serverId: s.everythingId, toolName: 'echo', arguments: { message: 'hello from the registry' } });
    expect(rpc.status).toBe(200);
    expect(rpc.body).toEqual(expected);

    const viaMcp = await s.client.callTool({
      name: 'call_tool',
      arguments: { serverId: s.everythingId, toolName: 'echo', arguments: { message: 'hello from the registry' } },
    });
    expect(viaMcp).toEqual(expected);
  });

  it("sends the tenant's credentials to its CUSTOM server", async () => {
    const res = await call(s.a.key, { serverId: s.fixtureId, toolName: 'whoami' });
    expect(res.body).toEqual({ content: [{ type: 'text', text: 'Bearer tenant-a-upstream-token' }] });
  });

  it('passes an isError result and a Pipedream connect link through unchanged', async () => {
    const expected = {
      isError: true,
      content: [{ type: 'text', text: `Connect your Slack account first: ${CONNECT_LINK}` }],
      _meta: { connectLink: CONNECT_LINK },
    };
    const rpc = await call(s.a.key, { serverId: s.fixtureId, toolName: 'fails' });
    expect(rpc.status).toBe(200);
    expect(rpc.body).toEqual(expected);
    expect(await s.client.callTool({ name: 'call_tool', arguments: { serverId: s.fixtureId, toolName: 'fails' } })).toEqual(expected);
  });

  it("does not let a tenant call another tenant's CUSTOM server (not found), nor a tool discovery did not find", async () => {
    const foreign = await call(s.b.key, { serverId: s.fixtureId, toolName: 'echo', arguments: { message: 'x' } });
    expectProblem(foreign, 404);
    expect(foreign.body.detail).toBe(`server ${s.fixtureId} not found`);

    const other = await mcpClient(s.t, s.b.key);
    const viaMcp = await other.callTool({ name: 'call_tool', arguments: { serverId: s.fixtureId, toolName: 'echo', arguments: { message: 'x' } } });
    await other.close();
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toContain('not found');

    const unknownTool = await call(s.a.key, { serverId: s.fixtureId, toolName: 'rm_rf' });
    expectProblem(unknownTool, 404);
    expect(unknownTool.body.detail).toContain('tool "rm_rf" not found on server "call-fixture"');

    const invalid = await call(s.a.key, { serverId: 'not-a-uuid', toolName: '' });
    expectProblem(invalid, 400);
  });

  it('refuses a server that is not connected with a clear 409', async () => {
    const off = await registerAndDiscover(s.t, { name: 'disabled-one', transport: 'streamable-http', url: s.fixture.url, enabled: false }, s.a.key);
    const res = await call(s.a.key, { serverId: off.id, toolName: 'echo' });
    expectProblem(res, 409);
    expect(res.body.detail).toContain('it is disabled');
  });

  it('ends a call to a hanging tool at the timeout with a clear 504, and never reuses that session', async () => {
    const sessionOf = async () => (await call(s.a.key, { serverId: s.fixtureId, toolName: 'session' })).body.content[0].text as string;
    const first = await sessionOf();
    expect(await sessionOf()).toBe(first);

    const started = Date.now();
    const hung = await call(s.a.key, { serverId: s.fixtureId, toolName: 'hang' });
    const took = Date.now() - started;
    expectProblem(hung, 504);
    expect(hung.body.detail).toBe(`server "call-fixture" did not answer tool "hang" in time (${CALL_TIMEOUT_MS} ms without progress, at most ${CALL_MAX_TIMEOUT_MS} ms in all)`);
    expect(took).toBeGreaterThanOrEqual(CALL_TIMEOUT_MS);
    expect(took).toBeLessThan(CALL_TIMEOUT_MS + 2000);

    // The registry cancelled the request upstream (notifications/cancelled), so the server stops working on it.
    await eventually('the server to see the call cancelled', async () => s.fixture.cancelled() >= 1, 5000);

    const opened = s.fixture.sessionsOpened();
    const next = await sessionOf();
    expect(next).not.toBe(first);
    expect(s.fixture.sessionsOpened()).toBe(opened + 1);
    expect(await sessionOf()).toBe(next);
    expect(s.t.app.get(ToolCallService).pool.stats().discarded).toBeGreaterThanOrEqual(1);

    const viaMcp = await s.client.callTool({ name: 'call_tool', arguments: { serverId: s.fixtureId, toolName: 'hang' } });
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toContain('did not answer tool \\"hang\\" in time');
  });

  it('answers 502 with a clear reason when the server is gone, and nothing secret', async () => {
    const gone = await startCallFixture();
    const server = await registerAndDiscover(
      s.t,
      { name: 'soon-gone', transport: 'streamable-http', url: gone.url, credentials: { bearerToken: 'gone-server-token-123456' } },
      s.a.key,
    );
    expect((await call(s.a.key, { serverId: server.id, toolName: 'echo', arguments: { message: 'x' } })).status).toBe(200);
    await gone.close();
    const res = await call(s.a.key, { serverId: server.id, toolName: 'echo', arguments: { message: 'x' } });
    expectProblem(res, 502);
    expect(res.body.detail).toMatch(/^server "soon-gone" failed the call of tool "echo": the connection was refused/);
    expect(res.text).not.toContain('gone-server-token-123456');
  });

  it('opens a new session, once, when the server no longer knows the pooled one (it restarted)', async () => {
    const sessionOf = async () => {
      const res = await call(s.a.key, { serverId: s.fixtureId, toolName: 'session' });
      expect(res.status).toBe(200);
      return res.body.content[0].text as string;
    };
    const before = await sessionOf();
    s.fixture.forgetSessions();
    const after = await sessionOf();
    expect(after).not.toBe(before);
  });

  it('lets progress extend the timeout up to the maximum, and forwards it to an MCP client', async () => {
    // 6 steps of 400 ms: longer than the timeout, but progress keeps it alive.
    const slow = await call(s.a.key, { serverId: s.fixtureId, toolName: 'progress', arguments: { steps: 6, stepMs: 400 } });
    expect(slow.status).toBe(200);
    expect(slow.body).toEqual({ content: [{ type: 'text', text: 'done after 6 steps' }] });

    const seen: number[] = [];
    const viaMcp = await s.client.callTool(
      { name: 'call_tool', arguments: { serverId: s.fixtureId, toolName: 'progress', arguments: { steps: 3, stepMs: 100 } } },
      undefined,
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(viaMcp.content).toEqual([{ type: 'text', text: 'done after 3 steps' }]);
    expect(seen).toEqual([1, 2, 3]);

    // Progress for longer than the maximum still ends there.
    const started = Date.now();
    const endless = await call(s.a.key, { serverId: s.fixtureId, toolName: 'progress', arguments: { steps: 100, stepMs: 300 } });
    expectProblem(endless, 504);
    expect(Date.now() - started).toBeLessThan(CALL_MAX_TIMEOUT_MS + 2000);
  });

  it('reaches the INTERNAL registry server in-process, answering in the scope of the caller', async () => {
    const servers = await s.t.request('GET', '/api/v1/servers?kind=MCP_SERVER_KIND_INTERNAL', { key: s.b.key });
    const internal = servers.body.servers[0];
    expect(internal).toMatchObject({ name: 'mcp-registry', status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', toolCount: 4 });
    const tools = await s.t.request('GET', `/api/v1/servers/${internal.id}/tools`, { key: s.b.key });
    expect(tools.body.tools.map((x: { name: string }) => x.name).sort()).toEqual(['call_tool', 'get_server_info', 'list_servers', 'search_tools']);

    const listedByB = await call(s.b.key, { serverId: internal.id, toolName: 'list_servers', arguments: {} });
    expect(listedByB.status).toBe(200);
    const namesB = listedByB.body.structuredContent.servers.map((s: { name: string }) => s.name);
    expect(namesB).toContain('mcp-registry');
    expect(namesB).not.toContain('call-fixture');

    const listedByA = await call(s.a.key, { serverId: internal.id, toolName: 'list_servers', arguments: {} });
    expect(listedByA.body.structuredContent.servers.map((s: { name: string }) => s.name)).toContain('call-fixture');
  });

  it('audits every call: who, server, tool, duration, outcome, and never the arguments or the result', async () => {
    await call(s.a.key, { serverId: s.everythingId, toolName: 'echo', arguments: { message: 'an-argument-that-must-not-be-logged' } });
    await s.t.app.get(ToolCallService).flushAudit();
    const res = await s.t.request('GET', `/api/v1/audit?action=tool.call&resourceId=${s.everythingId}`);
    expect(res.status).toBe(200);
    const events = res.body.events as Record<string, any>[];
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events[0]).toMatchObject({
      actorType: 'tenant',
      actorId: s.a.keyId,
      tenantId: s.a.tenantId,
      action: 'tool.call',
      resourceType: 'server',
      resourceId: s.everythingId,
      outcome: 'ok',
      durationMs: expect.any(Number),
      detail: { tool: 'echo', via: 'rpc', server: 'everything' },
    });
    expect(events.some((e) => e.detail.via === 'mcp')).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain('an-argument-that-must-not-be-logged');
    expect(JSON.stringify(res.body)).not.toContain('hello from the registry');

    const fixtureEvents = (await s.t.request('GET', `/api/v1/audit?action=tool.call&resourceId=${s.fixtureId}`)).body.events as Record<string, any>[];
    const outcomes = new Set(fixtureEvents.map((e) => e.outcome));
    for (const o of ['ok', 'tool_error', 'timeout', 'not_found']) expect(outcomes).toContain(o);
    expect(JSON.stringify(fixtureEvents)).not.toContain('tenant-a-upstream-token');
    expect(s.t.logs()).not.toContain('tenant-a-upstream-token');
  });
});

describe('the per-tenant call rate limit', () => {
  const s = useStand(async (keep) => {
    const fixture = keep(await startCallFixture());
    const env = { MCP_OUTBOUND_ALLOW: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '3' };
    const first = keep(await startTestApp({ env }));
    // A second replica with the same Redis namespace: the limit is the tenant's, not the replica's.
    const second =
      redisUrl() && hasPostgres() ? keep(await startTestApp({ env, worker: false, database: first.database, queuePrefix: first.queuePrefix })) : undefined;
    const tenant = await makeTenant(first);
    const serverId = (await registerAndDiscover(first, { name: 'limited', transport: 'streamable-http', url: fixture.url }, tenant.key)).id;
    return { first, second, tenant, serverId };
  });

  const name = redisUrl() && hasPostgres()
    ? 'answers 429 with Retry-After once the tenant used its calls, counted across replicas in Redis; the admin is not limited'
    : 'answers 429 with Retry-After once the tenant used its calls (one replica: without Redis and PostgreSQL no second replica shares the count); the admin is not limited';
  it(name, async () => {
    const body = { serverId: s.serverId, toolName: 'echo', arguments: { message: 'x' } };
    const apps = s.second ? [s.first, s.second, s.first] : [s.first, s.first, s.first];
    for (const app of apps) expect((await app.request('POST', '/api/v1/llm/mcp-call-tool', { key: s.tenant.key, body })).status).toBe(200);
    const limited = await (s.second ?? s.first).request('POST', '/api/v1/llm/mcp-call-tool', { key: s.tenant.key, body });
    expectProblem(limited, 429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(20);
    expect(limited.body.detail).toContain('limited to 3 per minute');

    const viaMcp = await mcpClient(s.first, s.tenant.key);
    const result = await viaMcp.callTool({ name: 'call_tool', arguments: body });
    await viaMcp.close();
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Too many requests');

    expect((await s.first.request('POST', '/api/v1/llm/mcp-call-tool', { body })).status).toBe(200);
  });
});
