import { TenantCallLimits } from '../../apps/api/src/llm-tools/tenant-call-limits';
import { startBigResultServer } from '../fixtures/big-results';
import { eventually, registerAndDiscover } from '../llm/helpers';
import { expectProblem, makeTenant } from '../support/tenants';
import { startTestApp } from '../support/app';
import { useStand } from '../support/stand';

const MiB = 1024 * 1024;

/** What one tool call and one tenant's calls in flight may hold: toolResultMaxBytes, maxCallsInFlight, maxResultBytesInFlight. */
describe('tool call limits', () => {
  const s = useStand(async (keep) => {
    const fixture = keep(await startBigResultServer());
    const t = keep(await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', TOOL_RESULT_MAX_BYTES: String(MiB), RATE_LIMIT_PER_MINUTE: '0' } }));
    // The calls the server still holds are let go before the registry closes.
    keep(fixture, (f) => f.release());
    const [a, b] = await Promise.all([makeTenant(t), makeTenant(t)]);
    const [sa, sb] = await Promise.all([
      registerAndDiscover(t, { name: 'big-results', transport: 'streamable-http', url: fixture.url }, a.key),
      registerAndDiscover(t, { name: 'big-results', transport: 'streamable-http', url: fixture.url }, b.key),
    ]);
    expect([sa.status, sb.status]).toEqual(['MCP_SERVER_CONNECTION_STATUS_CONNECTED', 'MCP_SERVER_CONNECTION_STATUS_CONNECTED']);
    return { t, fixture, a, b, serverA: sa.id, serverB: sb.id };
  });

  const call = (key: string, serverId: string, toolName: string, kilobytes: number) =>
    s.t.request('POST', '/api/v1/llm/mcp-call-tool', { key, body: { serverId, toolName, arguments: { kilobytes } } });
  const setLimits = (tenantId: string, limits: Record<string, number | null>) => s.t.request('PATCH', `/api/v1/tenants/${tenantId}`, { body: { limits } });
  const load = (tenantId: string) => s.t.app.get(TenantCallLimits).loadOf(tenantId);

  it('stops reading a result past toolResultMaxBytes and answers a 502 that names the limit; the next call works', async () => {
    const res = await call(s.a.key, s.serverA, 'big', 15 * 1024);
    expectProblem(res, 502);
    expect(res.body.detail).toMatch(/exceeded 1 MiB \(1048576 bytes, the limit toolResultMaxBytes\)/);
    expect(res.body.limit).toEqual({ name: 'toolResultMaxBytes', value: MiB, variable: 'TOOL_RESULT_MAX_BYTES' });
    // The registry stopped reading: the server could not write its 15 MB.
    await eventually('the server to see its answer cut off', async () => s.fixture.cutOff() >= 1);
    expect(load(s.a.tenantId)).toEqual({ calls: 0, bytes: 0 });

    const small = await call(s.a.key, s.serverA, 'big', 200);
    expect(small.status).toBe(200);
    expect(small.body.content[0].text).toHaveLength(200 * 1024);
    const audit = await eventually('the audit of the refused call', async () => {
      await s.t.app.get((await import('../../apps/api/src/llm-tools/tool-call.service')).ToolCallService).flushAudit();
      return s.t.runtime.prisma.auditEvent.findFirst({ where: { action: 'tool.call', tenantId: s.a.tenantId, outcome: 'limit_exceeded' } });
    });
    expect(audit.detail).toMatchObject({ tool: 'big' });
  });

  it("takes the tenant's own result limit when the admin set one", async () => {
    expect((await setLimits(s.b.tenantId, { toolResultMaxBytes: 4 * MiB })).status).toBe(200);
    const res = await call(s.b.key, s.serverB, 'big', 3 * 1024);
    expect(res.status).toBe(200);
    expect(res.body.content[0].text).toHaveLength(3 * MiB);
    expectProblem(await call(s.a.key, s.serverA, 'big', 3 * 1024), 502);
    await setLimits(s.b.tenantId, { toolResultMaxBytes: null });
  });

  it('refuses a call past maxCallsInFlight with a 429 and Retry-After; other tenants are not held up', async () => {
    expect((await setLimits(s.a.tenantId, { maxCallsInFlight: 3 })).status).toBe(200);
    const running = [1, 2, 3].map(() => call(s.a.key, s.serverA, 'drip', 1));
    await eventually('three calls held by the server', async () => s.fixture.held() === 3);
    const refused = await call(s.a.key, s.serverA, 'big', 1);
    expectProblem(refused, 429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.limit).toEqual({ name: 'maxCallsInFlight', value: 3, variable: 'TENANT_MAX_CALLS_IN_FLIGHT' });
    expect((await call(s.b.key, s.serverB, 'big', 1)).status).toBe(200);
    s.fixture.release();
    expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await call(s.a.key, s.serverA, 'big', 1)).status).toBe(200);
    await setLimits(s.a.tenantId, { maxCallsInFlight: null });
  });

  it('bounds the result bytes that the calls in flight of one tenant hold together (maxResultBytesInFlight)', async () => {
    expect((await setLimits(s.a.tenantId, { maxResultBytesInFlight: 512 * 1024 })).status).toBe(200);
    const running = [1, 2].map(() => call(s.a.key, s.serverA, 'drip', 200));
    await eventually('two calls holding 400 KiB', async () => s.fixture.held() === 2 && load(s.a.tenantId).bytes >= 400 * 1024);
    const refused = await call(s.a.key, s.serverA, 'drip', 200);
    expectProblem(refused, 429);
    expect(refused.body.limit).toEqual({ name: 'maxResultBytesInFlight', value: 512 * 1024, variable: 'TENANT_MAX_RESULT_BYTES_IN_FLIGHT' });
    expect(refused.body.detail).toMatch(/hold 512 KiB of results/);
    // The refused call's answer was cut off: the server lets it go.
    await eventually('the refused call gone from the server', async () => s.fixture.held() === 2);
    // What the two calls still running hold (their answers so far, with the JSON around them): the refused one gave its bytes back.
    expect(load(s.a.tenantId).calls).toBe(2);
    expect(load(s.a.tenantId).bytes).toBeGreaterThanOrEqual(400 * 1024);
    expect(load(s.a.tenantId).bytes).toBeLessThan(401 * 1024);
    // Another tenant's calls count on their own.
    const other = call(s.b.key, s.serverB, 'drip', 300);
    await eventually('the other tenant holding its call', async () => s.fixture.held() === 3 && load(s.b.tenantId).bytes >= 300 * 1024);
    s.fixture.release();
    const answers = await Promise.all([...running, other]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(load(s.a.tenantId)).toEqual({ calls: 0, bytes: 0 });
    await setLimits(s.a.tenantId, { maxResultBytesInFlight: null });
  });
});
