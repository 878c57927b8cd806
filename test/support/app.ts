import { AppConfig, loadConfig } from '@app/config';
import { createLogger } from '@app/observability';
import { Runtime, startRuntime } from '@app/platform';
import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createApiApp } from '../../apps/api/src/api.app';
import { WorkerModule } from '@app/worker';
import { createTestDatabase, redisUrl, TestDatabase } from './database';
import { readThrough } from './stand';

export interface TestAppOptions {
  /** Run on the embedded defaults (PGlite, queue in it), as `npm start` with no environment does. */
  embedded?: boolean;
  /** Run the discovery worker in the same process (default true). */
  worker?: boolean;
  /** Put the queue on Redis when the machine has one (default true); false keeps it in PostgreSQL. */
  redis?: boolean;
  /** Extra environment, as the process would read it. */
  env?: Record<string, string>;
  /** Share another app's database (a second replica or worker). */
  database?: TestDatabase;
  queuePrefix?: string;
  /** Modules mounted beside the application's own (routes a test needs to look inside a request). */
  modules?: (Type | DynamicModule)[];
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestApp {
  baseUrl: string;
  adminKey: string;
  config: AppConfig;
  runtime: Runtime;
  app: INestApplication;
  database: TestDatabase;
  queuePrefix: string;
  /** Every log line the process wrote so far (to search for leaked secrets). */
  logs(): string;
  request<T = any>(
    method: string,
    path: string,
    opts?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

/**
 * Starts the real application in this process, on a port of its own, against
 * this machine's PostgreSQL (a database cloned for the caller) and Redis, or
 * the embedded defaults where those are absent.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.embedded
    ? { url: undefined, drop: async () => undefined }
    : (options.database ?? (await createTestDatabase()));
  const dataDir = mkdtempSync(join(tmpdir(), 'mcpr-test-'));
  const adminKey = 'mcpr_admin_' + randomBytes(18).toString('base64url');
  const queuePrefix = options.queuePrefix ?? 'mcprt' + randomBytes(4).toString('hex');
  const useRedis = !options.embedded && options.redis !== false && redisUrl() !== undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: adminKey,
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: '5000',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...(useRedis ? { REDIS_URL: redisUrl()! } : {}),
    ...options.env,
  };
  const config = loadConfig(env, { workerDefault: options.worker ?? true });
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const logger = createLogger(config.logLevel, 'test', sink);
  const runtime = await startRuntime(config.workerEnabled ? 'all' : 'api', config, logger);
  const app = await createApiApp(runtime, [...(config.workerEnabled ? [WorkerModule.forRoot()] : []), ...(options.modules ?? [])]);
  // PORT 0 (the tests' default) is any free port; a test that needs to know it first (PUBLIC_URL) gives one.
  await app.listen(config.port, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  let closed = false;
  return {
    baseUrl,
    adminKey,
    config,
    runtime,
    app,
    database,
    queuePrefix,
    logs: () => lines.join(''),
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? adminKey : opts.key;
      if (key) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (opts.rawBody !== undefined) {
        body = opts.rawBody;
        headers['content-type'] ??= 'application/json';
      } else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] = 'application/json';
      }
      const res = await fetch(baseUrl + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: res.status, headers: res.headers, body: parsed as any, text };
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await runtime.close();
      if (!options.database) await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The app of one `describe`: started by a `beforeAll` hook (options may be computed there, by a function) and
 * closed by an `afterAll` hook, both registered where this is called. The app is usable in tests and in the hooks
 * declared after this call; it is closed before the `afterAll` hooks declared after it run.
 */
export function useTestApp(options: TestAppOptions | (() => TestAppOptions | Promise<TestAppOptions>) = {}): TestApp {
  let started: TestApp | undefined;
  const app = (): TestApp => {
    if (!started) throw new Error('the test app is not started: use it in a test or in a hook declared after useTestApp');
    return started;
  };
  beforeAll(async () => {
    started = await startTestApp(typeof options === 'function' ? await options() : options);
  });
  afterAll(async () => started?.close());
  // Every property read or written goes to the started app: the same object for the whole describe.
  return readThrough(app);
}
