import { DiscoveryProducer, QueueName } from '@app/queue';
import { startEverything, startPaginatedServer, RunningServer } from '../fixtures/reference-servers';
import { startTestApp, TestApp } from '../support/app';
import { settled } from '../support/servers';
import { expectProblem, fields, makeTenant, TenantKey, watchSecrets } from '../support/tenants';

describe('registering several servers at once (POST /api/v1/servers/batch)', () => {
  let t: TestApp;
  let a: TenantKey;
  let secrets: ReturnType<typeof watchSecrets>;
  let everything: RunningServer;
  let paged: RunningServer;

  beforeAll(async () => {
    [everything, paged] = await Promise.all([startEverything('streamableHttp'), startPaginatedServer(25, 10)]);
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '*.example.com' } });
    secrets = watchSecrets(t);
    a = await makeTenant(t);
  });
  afterAll(async () => {
    expect(secrets.leaks()).toEqual([]);
    await t?.close();
    await Promise.all([everything?.close(), paged?.close()]);
  });

  /** POST /api/v1/servers/batch with these registrations, by the admin unless a key is given. */
  const batch = (servers: Record<string, unknown>[], key?: string) => t.request('POST', '/api/v1/servers/batch', { key, body: { servers } });
  const count = async (namePrefix: string) => t.runtime.prisma.server.count({ where: { name: { startsWith: namePrefix } } });
  const audits = async (ids: string[]) => t.runtime.prisma.auditEvent.count({ where: { action: 'server.create', resourceId: { in: ids } } });

  it('registers every server in the order given, queues each discovery, audits each, and they are all discovered', async () => {
    const token = secrets.secret('batch-bearer');
    const res = await batch([
      { name: 'batch-everything', transport: 'streamable-http', url: everything.url, credentials: { bearerToken: token } },
      { name: 'batch-paged', transport: 'streamable-http', url: paged.url, metadata: { team: 'search' } },
      { name: 'batch-off', transport: 'streamable-http', url: paged.url, enabled: false },
    ]);
    expect(res.status).toBe(201);
    const servers = res.body.servers as { id: string; name: string; status: string; kind: string; hasCredentials: boolean }[];
    expect(servers.map((s) => s.name)).toEqual(['batch-everything', 'batch-paged', 'batch-off']);
    expect(servers.map((s) => s.status)).toEqual([
      'MCP_SERVER_CONNECTION_STATUS_DISCOVERING',
      'MCP_SERVER_CONNECTION_STATUS_DISCOVERING',
      'MCP_SERVER_CONNECTION_STATUS_DISCONNECTED',
    ]);
    expect(servers.every((s) => s.kind === 'MCP_SERVER_KIND_BUILT_IN')).toBe(true);
    expect(servers[0].hasCredentials).toBe(true);
    expect(res.text).not.toContain(token);
    const queue = t.runtime.queue.createQueue(QueueName.Discovery);
    expect(await queue.getJob(DiscoveryProducer.jobId(servers[2].id))).toBeUndefined();
    expect(await audits(servers.map((s) => s.id))).toBe(3);

    const [e, p] = await Promise.all([settled(t, servers[0].id), settled(t, servers[1].id)]);
    expect(e.status).toBe('CONNECTED');
    expect(p.status).toBe('CONNECTED');
    // Every page of the paginated server was followed.
    expect(await t.runtime.prisma.tool.count({ where: { serverId: servers[1].id } })).toBe(25);
    const listed = await t.request('GET', `/api/v1/servers/${servers[1].id}`);
    expect(listed.body).toMatchObject({ status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', toolCount: 25, metadata: { team: 'search' } });
  });

  it('lists the servers of a batch in the order they were given (they share one creation time)', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `order-${String(39 - i).padStart(2, '0')}-${i % 7}`);
    const res = await batch(names.map((name) => ({ name, transport: 'streamable-http', url: 'https://order.example.com/mcp', enabled: false })));
    expect(res.status).toBe(201);
    const listed: string[] = [];
    let token: string | undefined;
    do {
      const page = await t.request('GET', `/api/v1/servers?pageSize=15${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
      expect(page.status).toBe(200);
      listed.push(...page.body.servers.map((s: { name: string }) => s.name).filter((n: string) => n.startsWith('order-')));
      token = page.body.nextPageToken;
    } while (token);
    expect(listed).toEqual(names);
  });

  it('is all or nothing: one bad item is named and nothing is registered', async () => {
    const res = await batch([
      { name: 'aon-1', transport: 'streamable-http', url: 'https://one.example.com/mcp' },
      { name: 'aon-2', transport: 'streamable-http', url: 'ftp://two.example.com' },
      { name: 'aon-3', transport: 'stdio' },
    ]);
    expectProblem(res, 400);
    expect(fields(res.body)).toEqual(expect.arrayContaining(['servers.1.url']));
    expect(await count('aon-')).toBe(0);
  });

  it('refuses a name given twice for the same owner, and a name already taken, registering nothing', async () => {
    const twice = await batch([
      { name: 'dup-a', transport: 'streamable-http', url: 'https://a.example.com/mcp' },
      { name: 'dup-b', transport: 'streamable-http', url: 'https://b.example.com/mcp' },
      { name: 'dup-a', transport: 'sse', url: 'https://c.example.com/sse' },
    ]);
    expectProblem(twice, 400);
    expect(fields(twice.body)).toEqual(['servers.2.name']);
    expect(twice.body.detail).toContain('servers.0');
    expect(await count('dup-')).toBe(0);

    const one = await t.request('POST', '/api/v1/servers', { body: { name: 'taken-1', transport: 'streamable-http', url: 'https://t.example.com/mcp', enabled: false } });
    expect(one.status).toBe(201);
    const taken = await batch([
      { name: 'taken-0', transport: 'streamable-http', url: 'https://t0.example.com/mcp', enabled: false },
      { name: 'taken-1', transport: 'streamable-http', url: 'https://t1.example.com/mcp', enabled: false },
    ]);
    expectProblem(taken, 409);
    expect(taken.body.detail).toContain('"taken-1"');
    expect(await count('taken-')).toBe(1);
  });

  it('holds a tenant to its own rules: CUSTOM remote servers only, names its own, the refusal naming the item', async () => {
    const mine = await batch([
      { name: 'shared-name', transport: 'streamable-http', url: 'https://x.example.com/mcp', enabled: false },
      { name: 'tenant-2', transport: 'sse', url: 'https://y.example.com/sse', enabled: false },
    ], a.key);
    expect(mine.status).toBe(201);
    expect(mine.body.servers.map((s: { kind: string; tenantId: string }) => [s.kind, s.tenantId])).toEqual([
      ['MCP_SERVER_KIND_CUSTOM', a.tenantId],
      ['MCP_SERVER_KIND_CUSTOM', a.tenantId],
    ]);
    // The same name for another owner (the platform) is not a conflict.
    const platform = await batch([{ name: 'shared-name', transport: 'streamable-http', url: 'https://x.example.com/mcp', enabled: false }]);
    expect(platform.status).toBe(201);

    const builtIn = await batch([
      { name: 'ok-1', transport: 'streamable-http', url: 'https://z.example.com/mcp' },
      { name: 'not-mine', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'streamable-http', url: 'https://z.example.com/mcp' },
    ], a.key);
    expectProblem(builtIn, 403);
    expect(builtIn.body.detail).toMatch(/^servers\.1: /);
    const local = await batch([
      { name: 'local-ok', transport: 'streamable-http', url: 'https://ok.example.com/mcp' },
      { name: 'local', transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' },
      { name: 'local-2', transport: 'sse', url: 'http://127.0.0.1:9/sse' },
    ], a.key);
    expectProblem(local, 400);
    expect(fields(local.body)).toEqual(['servers.1.url']);
    expect(await count('local-ok')).toBe(0);
    expect(await count('ok-1')).toBe(0);
    expect(await count('local')).toBe(0);
  });

  it("refuses a tenant's server whose host does not resolve, naming the item and registering nothing", async () => {
    // .invalid never resolves (RFC 6761); the lookup is real, through the system resolver.
    const res = await batch([
      { name: 'resolves-ok', transport: 'streamable-http', url: 'https://ok.example.com/mcp', enabled: false },
      { name: 'resolves-not', transport: 'streamable-http', url: 'https://mcp.nowhere.invalid/mcp' },
    ], a.key);
    expectProblem(res, 400);
    expect(fields(res.body)).toEqual(['servers.1.url']);
    expect(res.body.detail).toMatch(/^servers\.1\.url: mcp\.nowhere\.invalid (does not resolve|did not resolve within)/);
    expect(await count('resolves-')).toBe(0);
  });

  it('refuses an empty list, too many, non-objects and unknown fields', async () => {
    const many = Array.from({ length: 501 }, (_, i) => ({ name: `many-${i}`, transport: 'streamable-http', url: 'https://m.example.com/mcp' }));
    for (const [body, field] of [
      [{ servers: [] }, 'servers'],
      [{ servers: many }, 'servers'],
      [{ servers: [1] }, 'servers.0'],
      [{}, 'servers'],
      [{ servers: [{ name: 'x', transport: 'sse', url: 'https://x.example.com/sse', colour: 'red' }] }, 'servers.0.colour'],
    ] as const) {
      const res = await t.request('POST', '/api/v1/servers/batch', { body });
      expectProblem(res, 400);
      expect(fields(res.body)).toContain(field);
    }
    expect(await count('many-')).toBe(0);
  });

  it("keeps owners apart: a tenant cannot name a tenant, the admin's tenantId must exist and fit the kind", async () => {
    const b = await makeTenant(t);
    const other = await batch([{ name: 'theirs', transport: 'sse', url: 'https://o.example.com/sse', tenantId: b.tenantId }], a.key);
    expectProblem(other, 403);
    expect(other.body.detail).toMatch(/^servers\.0: /);
    const unknown = await batch([
      { name: 'for-b', transport: 'sse', url: 'https://o.example.com/sse', tenantId: b.tenantId, enabled: false },
      { name: 'for-nobody', transport: 'sse', url: 'https://o.example.com/sse', tenantId: '00000000-0000-4000-8000-000000000000' },
    ]);
    expectProblem(unknown, 400);
    expect(fields(unknown.body)).toEqual(['servers.1.tenantId']);
    const builtIn = await batch([{ name: 'platform-for-b', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'sse', url: 'https://o.example.com/sse', tenantId: b.tenantId }]);
    expectProblem(builtIn, 400);
    expect(fields(builtIn.body)).toEqual(['servers.0.tenantId']);
    expect(await count('for-')).toBe(0);
    expect(await count('theirs')).toBe(0);

    // The admin registering for b: b's own servers, whatever case the id is written in (names stay unique per owner).
    const forB = await batch([{ name: 'for-b', transport: 'sse', url: 'https://o.example.com/sse', tenantId: b.tenantId, enabled: false }]);
    expect(forB.status).toBe(201);
    expect(forB.body.servers[0]).toMatchObject({ kind: 'MCP_SERVER_KIND_CUSTOM', tenantId: b.tenantId });
    const again = await batch([{ name: 'for-b', transport: 'sse', url: 'https://o.example.com/sse', tenantId: b.tenantId.toUpperCase(), enabled: false }]);
    expectProblem(again, 409);
    const seenByB = await t.request('GET', '/api/v1/servers?q=for-b', { key: b.key });
    expect(seenByB.body.servers.map((x: { name: string }) => x.name)).toEqual(['for-b']);
    const seenByA = await t.request('GET', '/api/v1/servers?q=for-b', { key: a.key });
    expect(seenByA.body.servers).toEqual([]);
  });

  it('stores the servers and their audit records together: when the audit cannot be written, no server is stored', async () => {
    const prisma = t.runtime.prisma;
    await prisma.$executeRawUnsafe(`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.detail->>'name' = 'unaudited-2' THEN RAISE EXCEPTION 'audit refused'; END IF; RETURN NEW; END $$`);
    await prisma.$executeRawUnsafe(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()`);
    try {
      const res = await batch([
        { name: 'unaudited-1', transport: 'streamable-http', url: 'https://u.example.com/mcp', enabled: false },
        { name: 'unaudited-2', transport: 'streamable-http', url: 'https://u.example.com/mcp', enabled: false },
      ]);
      expectProblem(res, 500);
      expect(await count('unaudited-')).toBe(0);
      const one = await t.request('POST', '/api/v1/servers', { body: { name: 'unaudited-2', transport: 'streamable-http', url: 'https://u.example.com/mcp', enabled: false } });
      expectProblem(one, 500);
      expect(await count('unaudited-')).toBe(0);
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER refuse_audit ON audit_events`);
      await prisma.$executeRawUnsafe(`DROP FUNCTION refuse_audit()`);
    }
    const ok = await t.request('POST', '/api/v1/servers', { body: { name: 'unaudited-2', transport: 'streamable-http', url: 'https://u.example.com/mcp', enabled: false } });
    expect(ok.status).toBe(201);
    expect(await audits([ok.body.id])).toBe(1);
  });

  it('needs a key', async () => {
    const res = await t.request('POST', '/api/v1/servers/batch', { key: null, body: { servers: [{ name: 'n', transport: 'sse', url: 'https://n.example.com/sse' }] } });
    expectProblem(res, 401);
  });
});
