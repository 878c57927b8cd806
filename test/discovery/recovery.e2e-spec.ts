import IORedis from 'ioredis';
import { Fixture, slowToolsList } from '../fixtures/hostile-servers';
import { startTestApp, TestApp } from '../support/app';
import { hasPostgres, redisUrl } from '../support/database';
import { makeTenant, registerServer, runsOf, serverRow, settled, waitFor } from '../support/servers';
import { startWorkerProcess, WorkerProcess } from '../support/worker-process';

/** A Redis database of this test's own, so that FLUSHDB cannot touch any other test's keys. */
function dedicatedRedis(): string {
  const u = new URL(redisUrl()!);
  u.pathname = '/7';
  return u.toString();
}

const TIMEOUT_MS = 4000;
const ATTEMPTS = 3;
// Every server must settle within timeout × attempts plus the lease margin, the sweep period and some slack.
const SETTLE_BOUND_MS = TIMEOUT_MS * ATTEMPTS + 10_000 + 5_000 + 15_000;

const workerEnv = (redis: string, extra: Record<string, string> = {}) => ({
  REDIS_URL: redis,
  MCP_OUTBOUND_ALLOW: '127.0.0.1',
  DISCOVERY_TIMEOUT_MS: String(TIMEOUT_MS),
  DISCOVERY_ATTEMPTS: String(ATTEMPTS),
  // The shortest interval: servers come due again every ~10 s and the sweep runs every 5 s.
  DISCOVERY_INTERVAL_SECONDS: '10',
  ...extra,
});

// Worker processes share the test's database and queue: that needs this machine's PostgreSQL and Redis.
const needs = hasPostgres() && redisUrl() ? describe : describe.skip;

needs('recovery, with worker processes sharing PostgreSQL and Redis (skipped where this machine has no PostgreSQL or no Redis)', () => {
  let t: TestApp;
  let redis: string;
  let tenant: { key: string };
  const fixtures: Fixture[] = [];
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    redis = dedicatedRedis();
    // The API only: every discovery runs in worker processes.
    t = await startTestApp({ worker: false, env: workerEnv(redis) });
    tenant = await makeTenant(t);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.kill()));
    await t?.close();
    await Promise.all(fixtures.map((f) => f.close()));
  });

  async function slowServer(name: string, delayMs: number): Promise<string> {
    const fixture = await slowToolsList(delayMs, name);
    fixtures.push(fixture);
    return (await registerServer(t, { name, transport: 'streamable-http', url: fixture.url }, tenant.key)).id;
  }

  function worker(extra: Record<string, string> = {}): WorkerProcess {
    const w = startWorkerProcess(t, workerEnv(redis, extra));
    workers.push(w);
    return w;
  }

  it('takes up again a discovery whose worker was killed with SIGKILL in the middle of it', async () => {
    const a = worker();
    await a.waitFor(/worker ready/);
    const id = await slowServer('slow-killed', 3000);
    // Kill the worker while its discovery is under way (lease held, run open, tools/list unanswered).
    await waitFor('the worker to start the discovery', async () => (await runsOf(t, id)).some((r) => r.outcome === 'RUNNING'));
    await a.kill();
    const killedAt = Date.now();
    const b = worker();
    await b.waitFor(/worker ready/);

    const row = await settled(t, id, SETTLE_BOUND_MS);
    expect(row).toMatchObject({ status: 'CONNECTED', toolCount: 1, discoveryLeaseOwner: null });
    expect(Date.now() - killedAt).toBeLessThan(SETTLE_BOUND_MS);
    const runs = await runsOf(t, id);
    expect(runs[0]).toMatchObject({ outcome: 'FAILED', error: 'the worker running this discovery stopped before it finished' });
    expect(runs[runs.length - 1]).toMatchObject({ outcome: 'SUCCEEDED', toolCount: 1 });
    expect(runs.filter((r) => r.outcome === 'RUNNING')).toEqual([]);
  });

  it('rebuilds queued and scheduled work from the database after Redis lost everything', async () => {
    const before = await t.runtime.prisma.server.findMany({ select: { id: true } });
    // One job at a time, so that most discoveries are still queued when Redis is flushed.
    const c = worker({ DISCOVERY_CONCURRENCY: '1' });
    await c.waitFor(/worker ready/);
    const queued = await Promise.all(['q1', 'q2', 'q3', 'q4'].map((n) => slowServer(`queued-${n}`, 800)));
    await waitFor('the first queued discovery to start', async () => {
      const rows = await t.runtime.prisma.serverDiscovery.findMany({ where: { serverId: { in: queued }, leaseOwner: { not: null } } });
      return rows.length > 0;
    });

    const flusher = new IORedis(redis, { lazyConnect: true });
    await flusher.connect();
    await flusher.flushdb();
    expect(await flusher.dbsize()).toBeLessThanOrEqual(2);
    await flusher.quit();

    // Everything registered, before or after the flush, settles; none stays DISCOVERING.
    const all = [...before.map((r) => r.id), ...queued];
    for (const id of all) expect((await settled(t, id, SETTLE_BOUND_MS)).status).toBe('CONNECTED');

    // The schedule came back too: a server discovered before the flush is discovered again when it is due.
    const [first] = queued;
    const last = (await serverRow(t, first))!.lastDiscoveredAt!;
    await waitFor(
      'a scheduled re-discovery after the flush',
      async () => ((await serverRow(t, first))!.lastDiscoveredAt?.getTime() ?? 0) > last.getTime(),
      SETTLE_BOUND_MS,
      250,
    );
    const runs = await runsOf(t, first);
    expect(runs.map((r) => r.trigger)).toContain('scheduled');
    const stuck = await t.runtime.prisma.server.count({ where: { status: 'DISCOVERING', discovery: { requestedAt: { lt: new Date(Date.now() - SETTLE_BOUND_MS) } } } });
    expect(stuck).toBe(0);
  });
});
