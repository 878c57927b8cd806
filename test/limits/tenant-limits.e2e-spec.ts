import { useTestApp } from '../support/app';
import { expectProblem, fields, makeTenant, TenantKey } from '../support/tenants';

/** Per-tenant limits: the platform defaults from the configuration, the admin's own values, the server quota. */
describe('tenant limits', () => {
  const t = useTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '*.example.com', TENANT_MAX_SERVERS: '7', TENANT_MAX_TOOLS: '900' } });
  let a: TenantKey;
  let b: TenantKey;

  beforeAll(async () => {
    [a, b] = await Promise.all([makeTenant(t), makeTenant(t)]);
  });

  const registration = (name: string) => ({ name, transport: 'streamable-http', url: `https://${name}.example.com/mcp` });
  const batch = (key: string, names: string[]) => t.request('POST', '/api/v1/servers/batch', { key, body: { servers: names.map(registration) } });
  const owned = (tenantId: string) => t.runtime.prisma.server.count({ where: { tenantId } });
  const setLimits = (tenantId: string, limits: Record<string, number | null>) => t.request('PATCH', `/api/v1/tenants/${tenantId}`, { body: { limits } });

  it('shows the limits that apply to each tenant, and lets the admin set and clear its own, audited', async () => {
    const one = await t.request('GET', `/api/v1/tenants/${a.tenantId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: a.tenantId,
      limits: { maxServers: 7, maxTools: 900, maxCallsInFlight: 20, toolResultMaxBytes: 4194304, maxResultBytesInFlight: 33554432 },
      customLimits: {},
    });

    const set = await setLimits(a.tenantId, { maxServers: 12, maxCallsInFlight: 3 });
    expect(set.status).toBe(200);
    expect(set.body.limits).toMatchObject({ maxServers: 12, maxTools: 900, maxCallsInFlight: 3 });
    expect(set.body.customLimits).toEqual({ maxServers: 12, maxCallsInFlight: 3 });
    const listed = await t.request('GET', '/api/v1/tenants?pageSize=100');
    const row = listed.body.tenants.find((x: { id: string }) => x.id === a.tenantId);
    expect(row.limits.maxServers).toBe(12);
    expect(listed.body.tenants.find((x: { id: string }) => x.id === b.tenantId).limits.maxServers).toBe(7);

    const cleared = await setLimits(a.tenantId, { maxServers: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.customLimits).toEqual({ maxCallsInFlight: 3 });
    expect(cleared.body.limits.maxServers).toBe(7);
    await setLimits(a.tenantId, { maxCallsInFlight: null });

    const audit = await t.runtime.prisma.auditEvent.findMany({ where: { action: 'tenant.limits', resourceId: a.tenantId }, orderBy: { at: 'asc' } });
    expect(audit.map((e) => e.detail)).toEqual([
      expect.objectContaining({ before: {}, after: { maxServers: 12, maxCallsInFlight: 3 } }),
      expect.objectContaining({ before: { maxServers: 12, maxCallsInFlight: 3 }, after: { maxCallsInFlight: 3 } }),
      expect.objectContaining({ before: { maxCallsInFlight: 3 }, after: {} }),
    ]);
  });

  it('refuses bad limit values with a 400 naming the field, and a tenant key with 403', async () => {
    for (const limits of [{ maxServers: -1 }, { maxTools: 1.5 }, { maxCallsInFlight: 0 }, { toolResultMaxBytes: '4MB' }, { maxSeats: 3 }]) {
      const res = await t.request('PATCH', `/api/v1/tenants/${a.tenantId}`, { body: { limits } });
      expectProblem(res, 400);
      expect(fields(res.body).some((f) => f.startsWith('limits.'))).toBe(true);
    }
    expect((await t.request('GET', `/api/v1/tenants/${a.tenantId}`)).body.customLimits).toEqual({});
    expectProblem(await t.request('PATCH', `/api/v1/tenants/${a.tenantId}`, { key: a.key, body: { limits: { maxServers: 1000 } } }), 403);
    expectProblem(await t.request('GET', `/api/v1/tenants/${a.tenantId}`, { key: a.key }), 403);
    expectProblem(await t.request('GET', '/api/v1/tenants/00000000-0000-4000-8000-000000000000'), 404);
    expectProblem(await t.request('PATCH', '/api/v1/tenants/00000000-0000-4000-8000-000000000000', { body: { limits: { maxServers: 1 } } }), 404);
  });

  it("counts a tenant's servers against its limit, batch or not, and refuses the excess with a 409 naming the limit", async () => {
    const first = await batch(b.key, ['q-1', 'q-2', 'q-3', 'q-4', 'q-5']);
    expect(first.status).toBe(201);
    const over = await batch(b.key, ['q-6', 'q-7', 'q-8']);
    expectProblem(over, 409);
    expect(over.body.limit).toEqual({ name: 'maxServers', value: 7, variable: 'TENANT_MAX_SERVERS' });
    expect(over.body.detail).toMatch(/at most 7 servers \(maxServers\) and owns 5; registering 3 more/);
    expect(await owned(b.tenantId)).toBe(5);

    // The admin registering for the tenant is held to the same limit; the platform's own servers are not counted.
    expect((await t.request('POST', '/api/v1/servers', { body: { ...registration('q-6'), tenantId: b.tenantId } })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/servers', { body: { ...registration('platform-q'), enabled: false } })).status).toBe(201);
    expect((await t.request('POST', '/api/v1/servers', { key: b.key, body: registration('q-7') })).status).toBe(201);
    const eighth = await t.request('POST', '/api/v1/servers', { key: b.key, body: registration('q-8') });
    expectProblem(eighth, 409);
    expect(eighth.body.limit.name).toBe('maxServers');

    // Raised by the admin: room again at once; deleting frees room too.
    await setLimits(b.tenantId, { maxServers: 8 });
    expect((await t.request('POST', '/api/v1/servers', { key: b.key, body: registration('q-8') })).status).toBe(201);
    const all = await t.request('GET', '/api/v1/servers?pageSize=100', { key: b.key });
    const mine = all.body.servers.find((s: { name: string }) => s.name === 'q-1');
    expect((await t.request('DELETE', `/api/v1/servers/${mine.id}`, { key: b.key })).status).toBe(204);
    expect((await t.request('POST', '/api/v1/servers', { key: b.key, body: registration('q-9') })).status).toBe(201);
    expect(await owned(b.tenantId)).toBe(8);
  });

  it('lets no race take a tenant past its limit: of concurrent registrations, only those that fit are stored', async () => {
    const c = await makeTenant(t);
    for (let round = 0; round < 5; round++) {
      const has = await owned(c.tenantId);
      await setLimits(c.tenantId, { maxServers: has + 4 });
      // Two batches of three with room for four: one is stored, the other refused whole.
      const answers = await Promise.all([batch(c.key, [`r${round}-a1`, `r${round}-a2`, `r${round}-a3`]), batch(c.key, [`r${round}-b1`, `r${round}-b2`, `r${round}-b3`])]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(await owned(c.tenantId)).toBe(has + 3);
    }
    // Ten single registrations at once with room for three.
    const has = await owned(c.tenantId);
    await setLimits(c.tenantId, { maxServers: has + 3 });
    const singles = await Promise.all(Array.from({ length: 10 }, (_, i) => t.request('POST', '/api/v1/servers', { key: c.key, body: registration(`single-${i}`) })));
    expect(singles.filter((r) => r.status === 201)).toHaveLength(3);
    expect(singles.filter((r) => r.status === 409)).toHaveLength(7);
    expect(await owned(c.tenantId)).toBe(has + 3);
  });
});
