import { RunningServer, startPaginatedServer } from '../fixtures/reference-servers';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, registerServer, runsOf, settled } from '../support/servers';

/** The tools a tenant's servers hold together are bounded by its tool limit (maxTools, TENANT_MAX_TOOLS). */
describe('the tenant tool limit', () => {
  let t: TestApp;
  let small: RunningServer;
  let big: RunningServer;

  beforeAll(async () => {
    [small, big] = await Promise.all([startPaginatedServer(25, 10), startPaginatedServer(40, 20)]);
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', TENANT_MAX_TOOLS: '60', DISCOVERY_ATTEMPTS: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([small?.close(), big?.close()]);
  });

  const toolsHeld = (tenantId: string) => t.runtime.prisma.tool.count({ where: { server: { tenantId } } });

  it('ends a discovery that would take the tenant past its limit in ERROR, naming the limit, and stores none of it', async () => {
    const tenant = await makeTenant(t);
    const first = await registerServer(t, { name: 'tl-first', transport: 'streamable-http', url: small.url }, tenant.key);
    expect((await settled(t, first.id)).status).toBe('CONNECTED');
    const second = await registerServer(t, { name: 'tl-second', transport: 'streamable-http', url: small.url }, tenant.key);
    expect((await settled(t, second.id)).status).toBe('CONNECTED');
    expect(await toolsHeld(tenant.tenantId)).toBe(50);

    const third = await registerServer(t, { name: 'tl-third', transport: 'streamable-http', url: small.url }, tenant.key);
    const row = await settled(t, third.id);
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/offers 25 tools and the tenant's other servers hold 50: together more than the tenant's limit of 60 tools \(maxTools\)/);
    expect(row.toolCount).toBe(0);
    expect(await toolsHeld(tenant.tenantId)).toBe(50);
    const [run] = await runsOf(t, third.id);
    expect(run).toMatchObject({ outcome: 'FAILED', error: row.statusReason });
    const view = await t.request('GET', `/api/v1/servers/${third.id}`, { key: tenant.key });
    expect(view.body.status).toBe('MCP_SERVER_CONNECTION_STATUS_ERROR');

    // Raised by the admin, the next discovery stores the server's tools.
    expect((await t.request('PATCH', `/api/v1/tenants/${tenant.tenantId}`, { body: { limits: { maxTools: 75 } } })).status).toBe(200);
    expect((await t.request('POST', `/api/v1/servers/${third.id}/discover`, { key: tenant.key })).status).toBe(202);
    expect((await settled(t, third.id)).status).toBe('CONNECTED');
    expect(await toolsHeld(tenant.tenantId)).toBe(75);
  });

  it('counts discoveries that run at the same time one after the other, and leaves the platform servers out', async () => {
    // The platform's own servers hold tools too; they count against no tenant.
    const platform = await registerServer(t, { name: 'tl-platform', transport: 'streamable-http', url: big.url });
    expect((await settled(t, platform.id)).status).toBe('CONNECTED');

    const tenant = await makeTenant(t);
    const res = await t.request('POST', '/api/v1/servers/batch', {
      key: tenant.key,
      body: { servers: Array.from({ length: 4 }, (_, i) => ({ name: `tl-race-${i}`, transport: 'streamable-http', url: big.url })) },
    });
    expect(res.status).toBe(201);
    const rows = await Promise.all(res.body.servers.map((s: { id: string }) => settled(t, s.id)));
    // 40 tools each against a limit of 60: one server fits, whichever finished first; the others are refused.
    expect(rows.filter((r) => r.status === 'CONNECTED')).toHaveLength(1);
    expect(rows.filter((r) => r.status === 'ERROR').every((r) => /limit of 60 tools \(maxTools\)/.test(r.statusReason ?? ''))).toBe(true);
    expect(await toolsHeld(tenant.tenantId)).toBe(40);
  });
});
