import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { API_MAIN, listeningUrl, processStand, startProcess, startWorker } from '../foundation/app-process';
import { hasPostgres, redisUrl } from '../support/database';
import { useStand } from '../support/stand';

/**
 * An API host whose clock runs ahead of the database's. A discovery request is stamped with the database's clock,
 * the clock the worker's claim is stamped with, so the first result is recorded: one discovery, one result, not a
 * run repeated until the two clocks pass each other. The API runs under faketime (LD_PRELOAD), 10 minutes ahead;
 * the worker, in a process of its own, keeps the machine's clock.
 */
const SKEW = '+10m';
const hasFaketime = spawnSync('faketime', ['-f', '+0', 'true']).status === 0;
const reason = !hasPostgres() ? ' (skipped: needs TEST_DATABASE_URL)' : !hasFaketime ? ' (skipped: faketime is not installed; apt-get install faketime)' : '';

(hasPostgres() && hasFaketime ? describe : describe.skip)(`discovery requested from an API host whose clock runs 10 minutes ahead${reason}`, () => {
  const adminKey = 'mcpr_admin_' + randomBytes(18).toString('base64url');

  const s = useStand(async (keep) => {
    const { fixture, db, dataDir } = await processStand(keep, 'mcpr-skew');
    const common = {
      DATABASE_URL: db.url!,
      ...(redisUrl() ? { REDIS_URL: redisUrl()! } : {}),
      QUEUE_PREFIX: `skew-${randomBytes(4).toString('hex')}`,
      ADMIN_API_KEY: adminKey,
      CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      // A sweep every 5 s: the margin after the result is the worker's next sweep, which queues any discovery left asked for.
      DISCOVERY_INTERVAL_SECONDS: '50',
    };
    const api = startProcess('faketime', ['-f', SKEW, process.execPath, API_MAIN], {
      ...common,
      DATA_DIR: dataDir('api'),
      PORT: '0',
      WORKER_ENABLED: 'false',
      // Without these, faketime caches its offset and also fakes the monotonic clock the timers run on.
      FAKETIME_NO_CACHE: '1',
      DONT_FAKE_MONOTONIC: '1',
    });
    const worker = startWorker({ ...common, DATA_DIR: dataDir('worker'), LOG_LEVEL: 'debug' });
    const url = await listeningUrl(api, 45_000);
    await worker.waitFor(/worker ready/, 45_000);
    return { fixture, worker, url };
  }, 120_000);

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(s.url + path, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const count = (pattern: RegExp) => (s.worker.stdout() + s.worker.stderr()).match(new RegExp(pattern.source, 'g'))?.length ?? 0;
  /** The worker's log lines about one server with this message (the platform's own server is discovered too). */
  const about = (id: string, msg: string) => new RegExp(`"serverId":"${id}"[^\n]*"msg":"${msg}`);
  /** Resolves once the worker's output holds `n` lines matching `pattern`. */
  const lines = (pattern: RegExp, n: number, timeoutMs = 30_000) => s.worker.waitFor(new RegExp(`(?:${pattern.source}[\\s\\S]*){${n}}`), timeoutMs);

  /**
   * Waits for `n` results of each server, or for the run repeated (a repeat is logged as superseded), whichever the
   * worker shows first; then, as a margin by event, two more sweeps of the worker (one whole), which would queue a
   * discovery still asked for.
   */
  async function settle(ids: string[], n: number): Promise<void> {
    for (const id of ids) {
      const succeeded = about(id, 'discovery succeeded');
      const superseded = about(id, 'discovery superseded');
      await s.worker.waitFor(new RegExp(`(?:${succeeded.source}[\\s\\S]*){${n}}|(?:${superseded.source}[\\s\\S]*){3}`), 60_000);
    }
    const sweeps = count(/sweep finished/);
    await lines(/sweep finished/, sweeps + 2, 30_000);
  }
  const runs = async (id: string) =>
    ((await (await admin('GET', `/api/v1/servers/${id}/discoveries`)).json()) as { runs: { outcome: string; trigger: string }[] }).runs.map((r) => [r.trigger, r.outcome]);
  const status = async (id: string) => ((await (await admin('GET', `/api/v1/servers/${id}`)).json()) as { status: string }).status;

  it('runs one discovery and records its one result', async () => {
    const created = await admin('POST', '/api/v1/servers', { name: 'skewed-host', kind: 'BUILT_IN', transport: 'streamable-http', url: s.fixture.url });
    expect(created.status).toBe(201);
    // The API process really is ahead: its HTTP Date header comes from its own clock.
    const apiClock = Date.parse(created.headers.get('date')!);
    expect(apiClock - Date.now()).toBeGreaterThan(9 * 60_000);
    const { id } = (await created.json()) as { id: string };

    await settle([id], 1);

    expect(await runs(id)).toEqual([['registered', 'SUCCEEDED']]);
    expect(await status(id)).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    expect(count(about(id, 'discovery started'))).toBe(1);
    expect(count(about(id, 'discovery superseded'))).toBe(0);
  }, 180_000);

  it('runs one discovery for each server of a batch registration, and one more for each explicit request', async () => {
    const created = await admin('POST', '/api/v1/servers/batch', {
      servers: ['skewed-batch-a', 'skewed-batch-b'].map((name) => ({ name, kind: 'BUILT_IN', transport: 'streamable-http', url: s.fixture.url })),
    });
    expect(created.status).toBe(201);
    const ids = ((await created.json()) as { servers: { id: string }[] }).servers.map((s) => s.id);
    await settle(ids, 1);
    for (const id of ids) expect(await runs(id)).toEqual([['registered', 'SUCCEEDED']]);

    expect((await admin('POST', `/api/v1/servers/${ids[0]}/discover`)).status).toBe(202);
    await settle([ids[0]], 2);
    expect(await runs(ids[0])).toEqual([
      ['manual', 'SUCCEEDED'],
      ['registered', 'SUCCEEDED'],
    ]);
    expect(await runs(ids[1])).toEqual([['registered', 'SUCCEEDED']]);
    for (const id of ids) expect(await status(id)).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
  }, 180_000);
});
