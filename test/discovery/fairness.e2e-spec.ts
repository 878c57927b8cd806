import { Fixture, silentAcceptor } from '../fixtures/hostile-servers';
import { RunningServer, startPaginatedServer } from '../fixtures/reference-servers';
import { startTestApp, TestApp } from '../support/app';
import { redisUrl } from '../support/database';
import { makeTenant, registerServer, settled, waitFor } from '../support/servers';

const backends: ('redis' | 'postgres')[] = redisUrl() ? ['redis', 'postgres'] : ['postgres'];

/** Servers of the busy tenant: they accept a connection and never answer. */
const HANGING = 44;
/** Longer than this test can take: a hanging discovery never ends while it runs, so "before any ended" is an order, not a time. */
const TIMEOUT_MS = 180_000;
const ENV = {
  MCP_OUTBOUND_ALLOW: '127.0.0.1',
  DISCOVERY_CONCURRENCY: '8',
  DISCOVERY_TENANT_CONCURRENCY: '2',
  DISCOVERY_TIMEOUT_MS: String(TIMEOUT_MS),
  DISCOVERY_ATTEMPTS: '1',
};

/**
 * Discovery is fair between tenants: a tenant whose servers never answer holds at most its share of a worker's
 * places (DISCOVERY_TENANT_CONCURRENCY), and another tenant's new server is discovered while they still hang.
 */
describe.each(backends)('discovery shared fairly between tenants (queue on %s)', (backend) => {
  let t: TestApp;
  let second: TestApp | undefined;
  let dead: Fixture;
  let healthy: RunningServer;

  beforeAll(async () => {
    [dead, healthy] = await Promise.all([silentAcceptor(), startPaginatedServer(5, 5)]);
    t = await startTestApp({ redis: backend === 'redis', env: ENV });
  });
  afterAll(async () => {
    // The hanging connections are cut first: their discoveries end at once and the app stops promptly.
    await dead?.close();
    await second?.close();
    await t?.close();
    await healthy?.close();
  });

  const runningOf = (tenantId: string) => t.runtime.prisma.discoveryRun.count({ where: { outcome: 'RUNNING', server: { tenantId } } });
  const endedOf = (tenantId: string) => t.runtime.prisma.discoveryRun.count({ where: { outcome: { not: 'RUNNING' }, server: { tenantId } } });

  it("discovers a quiet tenant's new server while a busy tenant's servers hang, and holds the busy one to its share", async () => {
    const busy = await makeTenant(t);
    const quiet = await makeTenant(t);
    const res = await t.request('POST', '/api/v1/servers/batch', {
      key: busy.key,
      body: { servers: Array.from({ length: HANGING }, (_, i) => ({ name: `hangs-${i}`, transport: 'streamable-http', url: dead.url })) },
    });
    expect(res.status).toBe(201);
    // The busy tenant's discoveries have taken their places and hang there.
    await waitFor('the busy tenant to hold its places', async () => (await runningOf(busy.tenantId)) >= 2);

    const fresh = await registerServer(t, { name: 'quiet-new', transport: 'streamable-http', url: healthy.url }, quiet.key);
    // Held only by the busy tenant's hanging discoveries, it would wait for one of them to end: none can while this runs.
    const row = await settled(t, fresh.id, 60_000);
    expect(row.status).toBe('CONNECTED');
    expect(await endedOf(busy.tenantId)).toBe(0);
    // Never more of the busy tenant's discoveries at once than its share of this worker's places.
    expect(await runningOf(busy.tenantId)).toBe(2);
    // Its other servers wait their turn, still DISCOVERING (none was claimed and failed).
    const waiting = await t.runtime.prisma.server.count({ where: { tenantId: busy.tenantId, status: 'DISCOVERING' } });
    expect(waiting).toBe(HANGING);
  });

  it("holds a tenant to its share of each worker's places with several workers, and the quiet tenant still comes first", async () => {
    second = await startTestApp({ redis: backend === 'redis', env: ENV, database: t.database, queuePrefix: t.queuePrefix });
    const busy = await makeTenant(t);
    const quiet = await makeTenant(t);
    const res = await t.request('POST', '/api/v1/servers/batch', {
      key: busy.key,
      body: { servers: Array.from({ length: HANGING }, (_, i) => ({ name: `hangs-two-${i}`, transport: 'streamable-http', url: dead.url })) },
    });
    expect(res.status).toBe(201);
    // Two workers, a share of two places on each: four of the busy tenant's discoveries at most, never more.
    let most = 0;
    await waitFor('the busy tenant to hold its places on both workers', async () => {
      const n = await runningOf(busy.tenantId);
      most = Math.max(most, n);
      return n >= 4;
    });
    const fresh = await registerServer(t, { name: 'quiet-two', transport: 'streamable-http', url: healthy.url }, quiet.key);
    const row = await settled(t, fresh.id, 60_000);
    expect(row.status).toBe('CONNECTED');
    expect(await endedOf(busy.tenantId)).toBe(0);
    most = Math.max(most, await runningOf(busy.tenantId));
    expect(most).toBe(4);
  });
});
