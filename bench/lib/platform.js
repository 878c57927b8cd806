'use strict';
// The platform under test, as real processes: the api (`main.js` of apps/api) and discovery workers
// (`main.js` of apps/worker) on a fresh PostgreSQL database and a fresh Redis key prefix of this run, or one
// `npm start`-style process on the embedded defaults (no DATABASE_URL, no REDIS_URL, a temporary DATA_DIR).
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const { freePort, log, sleep, tcpAnswers, Http } = require('./util');
const { startNode, stop, waitForLog, tail } = require('./processes');

const ROOT = path.resolve(__dirname, '..', '..');
const API_MAIN = path.join(ROOT, 'dist/apps/api/apps/api/src/main.js');
const WORKER_MAIN = path.join(ROOT, 'dist/apps/worker/apps/worker/src/main.js');

/** The V8 flags the start scripts run the api and the worker with (package.json config.nodeFlags). */
const START_FLAGS = require('../../package.json').config.nodeFlags.split(' ').filter(Boolean);
/**
 * The malloc settings the start scripts run with (`NAME=${NAME:-default}` in package.json's `start`), each taken from
 * this environment when set there, as the scripts do.
 */
const MALLOC_ENV = Object.fromEntries(
  [...require('../../package.json').scripts.start.matchAll(/\b(MALLOC_\w+)=\$\{\1:-([^}]*)\}/g)].map(([, name, value]) => [name, process.env[name] ?? value]),
);
const mallocSettings = () => Object.entries(MALLOC_ENV).map(([k, v]) => `${k}=${v}`).join(', ');
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Variables of the registry that the bench sets itself; whatever the caller's shell has is dropped. */
const REGISTRY_VARS = [
  'PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'ADMIN_API_KEY', 'CREDENTIALS_KEY', 'CREDENTIALS_KEYS_PREVIOUS',
  'NODE_ENV', 'MCP_OUTBOUND_ALLOW', 'DISCOVERY_INTERVAL_SECONDS', 'DISCOVERY_TIMEOUT_MS', 'DISCOVERY_CONCURRENCY',
  'DISCOVERY_ATTEMPTS', 'WORKER_ENABLED', 'EXTERNAL_SERVERS_FILE', 'LOG_LEVEL', 'SHUTDOWN_TIMEOUT_MS', 'QUEUE_PREFIX',
  'CALL_TIMEOUT_MS', 'CALL_MAX_TIMEOUT_MS', 'RATE_LIMIT_PER_MINUTE', 'CORS_ORIGINS', 'NODE_OPTIONS',
];

function baseEnv() {
  const env = { ...process.env };
  for (const name of REGISTRY_VARS) delete env[name];
  for (const name of Object.keys(env)) if (name.startsWith('PIPEDREAM_')) delete env[name];
  return env;
}

/** Secrets of this run: the same for every process of a platform, so that they share one admin key. */
function runSecrets() {
  return {
    adminKey: 'mcpr_bench_admin_' + crypto.randomBytes(18).toString('base64url'),
    credentialsKey: crypto.randomBytes(32).toString('base64'),
  };
}

// ---------------------------------------------------------------------------------------------- build

function newestMtime(dir, filter) {
  let newest = 0;
  let newestPath = '';
  const walk = (d) => {
    let entries;
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name === 'node_modules' || e.name === 'generated') continue;
        walk(p);
      } else if (filter(p)) {
        const t = fs.statSync(p).mtimeMs;
        if (t > newest) {
          newest = t;
          newestPath = p;
        }
      }
    }
  };
  walk(dir);
  return { mtime: newest, path: newestPath };
}

/**
 * Builds when dist is missing or older than the sources. A failed build with an older dist present goes on
 * with that dist (and says so); without any dist it stops the run.
 */
function ensureBuilt({ skip }) {
  const mains = [API_MAIN, WORKER_MAIN];
  const missing = mains.some((m) => !fs.existsSync(m));
  const isSource = (p) => /\.(ts|json|prisma|sql)$/.test(p) && !/\.(spec|e2e-spec|int-spec)\.ts$/.test(p);
  const sources = [path.join(ROOT, 'apps'), path.join(ROOT, 'libs'), path.join(ROOT, 'prisma')]
    .map((d) => newestMtime(d, isSource))
    .reduce((a, b) => (b.mtime > a.mtime ? b : a));
  const built = missing ? 0 : Math.min(...mains.map((m) => fs.statSync(m).mtimeMs));
  if (!missing && (skip || built >= sources.mtime)) {
    return { built: false, note: skip && built < sources.mtime ? 'dist older than the sources (--no-build)' : 'dist up to date' };
  }
  log(missing ? 'dist is missing: npm run build' : `dist is older than ${path.relative(ROOT, sources.path)}: npm run build`);
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status === 0) return { built: true, note: 'built by this run' };
  const output = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-20).join('\n');
  if (missing) throw new Error(`npm run build failed and there is no dist to run:\n${output}`);
  log(`npm run build failed; measuring the existing dist, which is older than the sources:\n${output}`);
  return { built: false, note: 'build failed; measured the older dist', buildError: output };
}

// ------------------------------------------------------------------------------- PostgreSQL and Redis

async function postgresAnswers() {
  const u = new URL(PG_ADMIN_URL);
  if (!(await tcpAnswers(u.hostname, Number(u.port || 5432)))) return false;
  const c = new Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function redisAnswers() {
  const u = new URL(REDIS_URL);
  if (!(await tcpAnswers(u.hostname, Number(u.port || 6379)))) return false;
  const IORedis = require('ioredis');
  const r = new IORedis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

const createdDatabases = new Set();
const usedPrefixes = new Set();

function databaseUrl(name) {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(sql) {
  const c = new Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A new, empty database of this run: mcpr_bench_<pid>_<tag>. */
async function createDatabase(tag) {
  const name = `mcpr_bench_${process.pid}_${tag}`;
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${name}"`);
  createdDatabases.add(name);
  return { name, url: databaseUrl(name) };
}

async function dropDatabase(name) {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  createdDatabases.delete(name);
}

function queuePrefix(tag) {
  const prefix = `mcprbench${process.pid}${tag}`;
  usedPrefixes.add(prefix);
  return prefix;
}

async function deleteRedisPrefix(prefix) {
  const IORedis = require('ioredis');
  const r = new IORedis(REDIS_URL, { maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  try {
    let cursor = '0';
    for (let i = 0; i < 100_000; i++) {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length) await r.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } finally {
    r.disconnect();
  }
  usedPrefixes.delete(prefix);
}

/** Drops every database and Redis prefix this run made. */
async function cleanupStores() {
  for (const name of [...createdDatabases]) await dropDatabase(name).catch((err) => log(`could not drop ${name}: ${err.message}`));
  for (const prefix of [...usedPrefixes]) await deleteRedisPrefix(prefix).catch((err) => log(`could not clear ${prefix}: ${err.message}`));
}

// ---------------------------------------------------------------------------------------- processes

/** How long the api's tool catalog took to load, from its log line "tool catalog loaded" (null when absent). */
function catalogLoadMsOf(logPath) {
  try {
    for (const line of fs.readFileSync(logPath, 'utf8').split('\n')) {
      if (!line.includes('"tool catalog loaded"')) continue;
      const ms = JSON.parse(line).ms;
      return typeof ms === 'number' ? ms : null;
    }
  } catch {
    // no log, or a line that is not JSON: not measured
  }
  return null;
}

/**
 * One platform: `mode` is 'postgres-redis' (api + `workers` worker processes on a database and a Redis prefix
 * of their own) or 'embedded' (one process, api and worker together, on a temporary DATA_DIR).
 */
class Platform {
  constructor({ mode, tag, logDir, workers = 1, env = {}, database, prefix }) {
    this.mode = mode;
    this.tag = tag;
    this.logDir = logDir;
    this.workerCount = workers;
    this.extraEnv = env;
    this.database = database;
    this.prefix = prefix;
    this.secrets = runSecrets();
    this.api = null;
    this.workers = [];
    this.port = null;
    this.starts = 0;
    if (mode === 'embedded') this.dataDir = fs.mkdtempSync(path.join(logDir, `data-${tag}-`));
  }

  env(role) {
    const env = {
      ...baseEnv(),
      HOST: '127.0.0.1',
      ADMIN_API_KEY: this.secrets.adminKey,
      CREDENTIALS_KEY: this.secrets.credentialsKey,
      MCP_OUTBOUND_ALLOW: '127.0.0.1',
      // As `npm start` runs them (package.json): malloc arenas and V8 flags are part of what is measured.
      ...MALLOC_ENV,
      ...this.extraEnv,
    };
    if (this.mode === 'embedded') {
      env.DATA_DIR = this.dataDir;
    } else {
      env.NODE_ENV = 'production';
      env.DATABASE_URL = this.database.url;
      env.REDIS_URL = REDIS_URL;
      env.QUEUE_PREFIX = this.prefix;
      env.DATA_DIR = path.join(this.logDir, `data-${this.tag}`);
      env.WORKER_ENABLED = role === 'api' ? 'false' : 'true';
    }
    return env;
  }

  get origin() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the api (and the workers) and waits until the api is ready and every worker says so. */
  async start({ nodeOptions = [] } = {}) {
    this.starts++;
    this.port = await freePort();
    const apiEnv = { ...this.env('api'), PORT: String(this.port) };
    const label = `${this.tag}-${this.mode === 'embedded' ? 'registry' : 'api'}-${this.starts}`;
    this.api = startNode(label, [API_MAIN], { env: apiEnv, cwd: ROOT, logDir: this.logDir, nodeOptions: [...START_FLAGS, ...nodeOptions] });
    const startedAt = Date.now();
    await this.waitReady(this.mode === 'embedded' ? 120_000 : 60_000);
    this.apiStartMs = Date.now() - startedAt;
    this.catalogLoadMs = catalogLoadMsOf(this.api.logPath);
    if (this.mode !== 'embedded') {
      this.workers = [];
      for (let w = 0; w < this.workerCount; w++) {
        this.workers.push(
          startNode(`${this.tag}-worker${w + 1}-${this.starts}`, [WORKER_MAIN], { env: this.env('worker'), cwd: ROOT, logDir: this.logDir, nodeOptions: [...START_FLAGS, ...nodeOptions] }),
        );
      }
      await Promise.all(this.workers.map((w) => waitForLog(w, /worker ready/, 60_000)));
    }
    this.http = new Http(this.origin, this.secrets.adminKey);
  }

  async waitReady(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      if (this.api.exit) throw new Error(`${this.api.label} exited with ${this.api.exit.code ?? this.api.exit.signal}: ${tail(this.api.logPath)}`);
      try {
        const res = await fetch(`${this.origin}/health/ready`);
        if (res.status === 200) return;
        last = `${res.status} ${await res.text()}`;
      } catch (err) {
        last = err.message;
      }
      await sleep(200);
    }
    throw new Error(`${this.api.label} not ready within ${timeoutMs} ms (${last}): ${tail(this.api.logPath)}`);
  }

  pids() {
    return { api: this.api?.pid ?? null, workers: this.workers.map((w) => w.pid) };
  }

  async stop() {
    if (this.http) await this.http.close().catch(() => undefined);
    this.http = null;
    await Promise.all([...this.workers.map((w) => stop(w)), stop(this.api)]);
    this.workers = [];
    this.api = null;
  }
}

module.exports = {
  ROOT,
  MALLOC_ENV,
  mallocSettings,
  API_MAIN,
  WORKER_MAIN,
  PG_ADMIN_URL,
  REDIS_URL,
  ensureBuilt,
  postgresAnswers,
  redisAnswers,
  createDatabase,
  dropDatabase,
  queuePrefix,
  deleteRedisPrefix,
  cleanupStores,
  Platform,
};
