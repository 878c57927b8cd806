import { migrate } from '@app/database-runtime';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisUrl } from '../support/database';
import {
  AppProcess,
  ensureBuilt,
  killAll,
  listeningUrl,
  ROOT,
  startApi,
  startProcess,
  startWorker,
} from './app-process';
import { createEmptyDatabase, ScratchDatabase, withClient } from './scratch-database';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'mcpr-proc-'));
  dirs.push(d);
  return d;
}

const databases: ScratchDatabase[] = [];
async function scratchDatabase(): Promise<ScratchDatabase> {
  const db = await createEmptyDatabase();
  databases.push(db);
  return db;
}

/** Asserts a refused start: exit code 1 and exactly one line on stderr, matching `line`, with no stack trace. */
async function expectRefused(p: AppProcess, line: RegExp): Promise<string> {
  const exit = await p.exited;
  const stderr = p.stderr();
  expect({ code: exit.code, stderr }).toEqual({ code: 1, stderr: expect.stringMatching(line) });
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return stderr;
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(ensureBuilt, 300_000);
afterEach(killAll);
afterAll(async () => {
  for (const db of databases) await db.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a bad configuration stops the process with one line naming the variable', () => {
  it.each([
    ['PORT=abc', { PORT: 'abc' }, /^error: PORT: must be a whole number\n$/],
    ['PORT=70000', { PORT: '70000' }, /^error: PORT: must be at most 65535\n$/],
    ['a malformed DATABASE_URL', { DATABASE_URL: 'postgres//db/registry' }, /^error: DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL with a host\n$/],
    ['NODE_ENV=production without ADMIN_API_KEY', { NODE_ENV: 'production' }, /^error: ADMIN_API_KEY: required when NODE_ENV=production\n$/],
    [
      'NODE_ENV=production without CREDENTIALS_KEY',
      { NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(32) },
      /^error: CREDENTIALS_KEY: required when NODE_ENV=production\n$/,
    ],
  ])('api: %s', async (_name, env, line) => {
    const dataDir = tempDir();
    await expectRefused(startApi({ DATA_DIR: dataDir, ...env }), line);
    // Refused before anything was generated or started.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('worker: NODE_ENV=production without ADMIN_API_KEY', async () => {
    await expectRefused(startWorker({ DATA_DIR: tempDir(), NODE_ENV: 'production' }), /^error: ADMIN_API_KEY: required when NODE_ENV=production\n$/);
  });

  it('an unreachable DATABASE_URL is named, without its password', async () => {
    const stderr = await expectRefused(
      startApi({ DATA_DIR: tempDir(), DATABASE_URL: 'postgresql://registry:s3cret-pw@127.0.0.1:1/registry' }),
      /^error: DATABASE_URL: cannot reach PostgreSQL at 127\.0\.0\.1:1\/registry \(ECONNREFUSED\)\n$/,
    );
    expect(stderr).not.toContain('s3cret-pw');
  });

  it('an unreachable REDIS_URL is named, and the database is left untouched', async () => {
    const db = await scratchDatabase();
    await expectRefused(
      startApi({ DATA_DIR: tempDir(), DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:1' }),
      /^error: REDIS_URL: cannot reach Redis at 127\.0\.0\.1:1 \(ECONNREFUSED\)\n$/,
    );
    const ledger = await withClient(db.url, async (c) => (await c.query(`SELECT to_regclass('public._prisma_migrations') AS t`)).rows[0].t);
    expect(ledger).toBeNull();
  });

  it('a PORT already in use is named', async () => {
    const db = await scratchDatabase();
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expectRefused(
        startApi({ DATA_DIR: tempDir(), DATABASE_URL: db.url, PORT: String(port), ...(redisUrl() ? { REDIS_URL: redisUrl()!, QUEUE_PREFIX: `mcprp${port}` } : {}) }),
        new RegExp(`^error: PORT: 127\\.0\\.0\\.1:${port} is already in use\\n$`),
      );
    } finally {
      blocker.close();
    }
  });

  it('a migration changed after it was applied refuses the start', async () => {
    const db = await scratchDatabase();
    await migrate(db.url);
    const name = await withClient(db.url, async (c) => {
      const r = await c.query<{ migration_name: string }>(
        `UPDATE "_prisma_migrations" SET checksum = repeat('0', 64)
         WHERE migration_name = (SELECT min(migration_name) FROM "_prisma_migrations") RETURNING migration_name`,
      );
      return r.rows[0].migration_name;
    });
    await expectRefused(
      startApi({ DATA_DIR: tempDir(), DATABASE_URL: db.url }),
      new RegExp(`^error: migration ${name} was changed after it was applied \\(checksum differs\\); refusing to start\\n$`),
    );
  });
});

describe('the embedded database of a DATA_DIR', () => {
  it('serves one process: a second is refused with the reason; SIGTERM then stops the first with exit 0 despite open connections', async () => {
    const dataDir = tempDir();
    const first = startApi({ DATA_DIR: dataDir, PORT: '0', SHUTDOWN_TIMEOUT_MS: '5000' });
    const url = await listeningUrl(first, 45_000);
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    // The banner says where the generated admin key is.
    expect(first.stderr()).toContain(join(dataDir, 'admin-api-key'));
    // Nest's own boot lines (a line per module and route) are debug-level: not in the default log.
    await first.waitFor(/"msg":"registry ready"/);
    expect(first.stdout()).not.toMatch(/"context":"(InstanceLoader|RoutesResolver|RouterExplorer|NestFactory|NestApplication)"/);

    const second = startApi({ DATA_DIR: dataDir, PORT: '0' });
    await expectRefused(
      second,
      new RegExp(`^error: DATA_DIR ${dataDir} is in use by process ${first.child.pid}: the embedded database serves one process\\. `),
    );
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);

    // Connections a client left open must not hold the process: an idle keep-alive one, and a request
    // whose body never finishes arriving.
    const port = Number(new URL(url).port);
    const idle = await connect(port);
    const answered = new Promise((r) => idle.once('data', r));
    idle.write('GET /health/live HTTP/1.1\r\nHost: registry\r\nConnection: keep-alive\r\n\r\n');
    await answered;
    const stalled = await connect(port);
    stalled.on('error', () => undefined);
    idle.on('error', () => undefined);
    stalled.write('POST /api/v1/tenants HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na');
    await new Promise((r) => setTimeout(r, 200));

    const stopped = await first.stop();
    expect(stopped).toMatchObject({ code: 0, signal: null });
    // Without forcing connections closed this takes the whole bound (SHUTDOWN_TIMEOUT_MS + 5 s) and exits 1.
    expect(stopped.ms).toBeLessThan(8000);
    expect(existsSync(join(dataDir, 'embedded.lock'))).toBe(false);
    idle.destroy();
    stalled.destroy();
  });

  it('is taken over from a process that died without releasing it', async () => {
    const dataDir = tempDir();
    const first = startApi({ DATA_DIR: dataDir, PORT: '0' });
    await listeningUrl(first, 45_000);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(dataDir, 'embedded.lock'))).toBe(true);

    const next = startApi({ DATA_DIR: dataDir, PORT: '0' });
    const url = await listeningUrl(next, 30_000);
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    expect((await next.stop()).code).toBe(0);
    // Two starts, the first on a new DATA_DIR: the waits above add up to 75 s on a loaded machine.
  }, 90_000);
});

describe('a stop asked for while the process is still starting', () => {
  it('finishes starting, then stops cleanly with exit 0 (not the signal\'s default, exit 143)', async () => {
    const p = startApi({ DATA_DIR: tempDir(), PORT: '0', SHUTDOWN_TIMEOUT_MS: '20000' });
    // Sent once the process is demonstrably running its own code (it has opened the embedded database) and
    // well before it is ready: it still has to migrate and build the application. A fixed delay can fall
    // before node has even reached the program's first line on a loaded machine.
    await p.waitFor(/embedded PostgreSQL started/, 45_000);
    const exit = await p.stop(60_000);
    expect([exit.code, exit.signal]).toEqual([0, null]);
    expect(p.stderr()).toContain('SIGTERM while starting: stopping once started');
    expect(p.stdout()).toMatch(/"msg":"stopped"/);
  });
});

describe('processes starting together on one new DATA_DIR', () => {
  it('agree on one generated admin key and one credentials key', async () => {
    const dataDir = tempDir();
    const config = join(ROOT, 'dist/apps/api/libs/config/src/config.js');
    const at = Date.now() + 1500;
    // Each process waits for the same instant, then reads the configuration: as an API and its workers
    // started by one command do.
    const script = `const { loadConfig } = require(${JSON.stringify(config)});
      while (Date.now() < ${at});
      const c = loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)} });
      process.stdout.write(c.adminApiKey + ' ' + c.credentialsKey.id);`;
    const procs = Array.from({ length: 6 }, () => startProcess(process.execPath, ['-e', script], {}));
    const exits = await Promise.all(procs.map((p) => p.exited));
    expect(exits.map((e) => e.code)).toEqual(procs.map(() => 0));
    const answers = new Set(procs.map((p) => p.stdout()));
    expect(answers.size).toBe(1);
    const [adminKey] = [...answers][0].split(' ');
    expect(adminKey).toBe(readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim());
    expect(readdirSync(dataDir).sort()).toEqual(['admin-api-key', 'credentials-key']);
  });
});

const services = Boolean(process.env.TEST_DATABASE_URL) && redisUrl() !== undefined;
describe('the api and worker roles as separate processes', () => {
  (services ? it : it.skip)(
    'npm run start:api and two npm run start:worker start together on PostgreSQL and Redis, migrate once, and stop on SIGTERM with exit 0 (needs TEST_DATABASE_URL and TEST_REDIS_URL)',
    async () => {
      const db = await scratchDatabase();
      const env = {
        DATA_DIR: tempDir(),
        DATABASE_URL: db.url,
        REDIS_URL: redisUrl()!,
        QUEUE_PREFIX: `mcprroles${randomBytes(3).toString('hex')}`,
        PORT: '0',
        SHUTDOWN_TIMEOUT_MS: '5000',
      };
      const api = startProcess('npm', ['run', 'start:api'], { ...env, LOG_LEVEL: 'debug' });
      const metricsPort = await freePort();
      const workers = [
        startProcess('npm', ['run', 'start:worker'], { ...env, WORKER_METRICS_PORT: String(metricsPort) }),
        startProcess('npm', ['run', 'start:worker'], env),
      ];

      const url = await listeningUrl(api, 45_000);
      expect(api.stderr()).toContain('Worker:    not in this process');
      // At LOG_LEVEL=debug, Nest's boot lines are there.
      await api.waitFor(/"level":"debug"[^\n]*"context":"RouterExplorer"/);
      const ready = await fetch(`${url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ checks: { database: 'up', queue: 'up' }, queueBackend: 'redis' });
      const workerPids = await Promise.all(
        workers.map(async (w) => Number((await w.waitFor(/"pid":(\d+)[^\n]*"msg":"worker ready"/, 45_000))[1])),
      );
      const apiPid = Number((await api.waitFor(/"pid":(\d+)[^\n]*"msg":"registry ready"/))[1]);
      // A worker given WORKER_METRICS_PORT serves its own discovery metrics.
      const workerMetrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(workerMetrics.status).toBe(200);
      const exposition = await workerMetrics.text();
      expect(exposition).toContain('# TYPE mcpr_discoveries_total counter');
      expect(exposition).toContain('# TYPE mcpr_discovery_duration_seconds histogram');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/health/live`)).status).toBe(200);

      // Three processes on one empty database: the migrations ran once.
      const ledger = await withClient(db.url, async (c) =>
        (await c.query<{ migration_name: string }>('SELECT migration_name FROM "_prisma_migrations"')).rows.map((r) => r.migration_name),
      );
      expect(new Set(ledger).size).toBe(ledger.length);
      expect(ledger.length).toBeGreaterThan(0);

      const stops = await Promise.all([api, ...workers].map((p) => p.stop()));
      expect(stops.map((s) => s.code)).toEqual([0, 0, 0]);
      // npm handed the signal to the registry itself, which is gone too (nothing left behind running).
      for (const pid of [apiPid, ...workerPids]) expect(pidAlive(pid)).toBe(false);
      for (const w of workers) expect(w.stdout()).toContain('"msg":"stopped"');
    },
  );
});
