#!/usr/bin/env node
// End-to-end smoke of `npm start` on the embedded defaults (no DATABASE_URL, no REDIS_URL), as a new user
// runs it: first start on a fresh DATA_DIR, a second process on the same DATA_DIR refused, SIGTERM exits 0,
// a restart finds its data again. Prints the timings; exits 1 on the first failure, with the processes' output.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { httpAnswer } = require('./lib/http-answer');
const { freePort } = require('./lib/ports');

const ROOT = resolve(__dirname, '..');
const FIRST_READY_MS = 30_000;
const RESTART_READY_MS = 10_000;
const STOP_MS = 15_000;

const timings = [];
const started = [];

class SmokeFailure extends Error {}

function fail(message) {
  throw new SmokeFailure(message);
}

function note(line) {
  process.stdout.write(`smoke: ${line}\n`);
}

/** The environment of a first-time user: none of the registry's variables set. */
function userEnv(dataDir, port) {
  const env = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'NODE_ENV',
    'ADMIN_API_KEY',
    'CREDENTIALS_KEY',
    'QUEUE_PREFIX',
    'WORKER_ENABLED',
    'LOG_LEVEL',
    'HOST',
  ]) {
    delete env[name];
  }
  return { ...env, DATA_DIR: dataDir, PORT: String(port) };
}

/** Runs `npm start`; keeps its output for the failure report. */
function npmStart(label, env) {
  // Its own process group, so that a failed run can take down npm and the registry under it together.
  const child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const proc = { label, child, stdout: '', stderr: '', running: true };
  child.stdout.on('data', (d) => (proc.stdout += d));
  child.stderr.on('data', (d) => (proc.stderr += d));
  proc.exited = new Promise((resolveExit) => {
    child.once('exit', (code, signal) => {
      proc.running = false;
      resolveExit({ code, signal });
    });
  });
  started.push(proc);
  return proc;
}

async function waitReady(proc, baseUrl, boundMs) {
  const started = Date.now();
  let exited;
  proc.exited.then((e) => (exited = e));
  while (Date.now() - started < boundMs) {
    if (exited) fail(`${proc.label}: exited before it was ready (code ${exited.code}, signal ${exited.signal})`);
    try {
      const res = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return Date.now() - started;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`${proc.label}: /health/ready did not answer 200 within ${boundMs / 1000} s`);
}

async function stop(proc) {
  const started = Date.now();
  proc.child.kill('SIGTERM');
  const timer = new Promise((r) => setTimeout(() => r('timeout'), STOP_MS).unref());
  const result = await Promise.race([proc.exited, timer]);
  if (result === 'timeout') fail(`${proc.label}: still running ${STOP_MS / 1000} s after SIGTERM`);
  if (result.code !== 0) fail(`${proc.label}: exited with code ${result.code} (signal ${result.signal}) after SIGTERM, expected 0`);
  return Date.now() - started;
}

async function request(method, url, key, body) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return httpAnswer(res.status, await res.text());
}

/** Reads the embedded database directly (the process is stopped): what survived on disk. */
async function readEmbedded(dataDir, tenantName) {
  const { PGlite } = require('@electric-sql/pglite');
  const db = new PGlite({ dataDir: join(dataDir, 'pgdata') });
  try {
    await db.waitReady;
    const migrations = await db.query(
      'SELECT id, migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL ORDER BY migration_name',
    );
    let tenants = 0;
    if (tenantName) {
      const r = await db.query('SELECT count(*)::int AS n FROM tenants WHERE name = $1', [tenantName]);
      tenants = r.rows[0].n;
    }
    return { migrations: migrations.rows, tenants };
  } finally {
    await db.close();
  }
}

function migrationDirs() {
  const dir = join(ROOT, 'prisma', 'migrations');
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort();
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcpr-smoke-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = userEnv(dataDir, port);
  const expectedMigrations = migrationDirs();
  note(`DATA_DIR ${dataDir}, port ${port}`);
  try {
    // 1. First start on an empty DATA_DIR: the embedded database is created and migrated.
    const first = npmStart('first start', env);
    const firstReady = await waitReady(first, baseUrl, FIRST_READY_MS);
    timings.push(['first start, ready (new DATA_DIR)', firstReady]);
    const keyFile = join(dataDir, 'admin-api-key');
    if (!existsSync(keyFile)) fail(`no admin key file at ${keyFile}`);
    if (!first.stderr.includes(keyFile)) fail('the start banner does not say where the admin key is');
    const adminKey = readFileSync(keyFile, 'utf8').trim();

    // The console answers at / from the built process (what `npm ci` built), with its CSP.
    const consolePage = await fetch(`${baseUrl}/`);
    const consoleHtml = await consolePage.text();
    if (consolePage.status !== 200 || !consoleHtml.includes('<div id="root">')) fail(`GET / answered ${consolePage.status}, not the console`);
    if (!(consolePage.headers.get('content-security-policy') ?? '').includes("script-src 'self'")) fail('GET / has no strict Content-Security-Policy');
    note('the console answers at /');

    // 2. Something written through the API, when the tenants API exists.
    let tenantName;
    const tenant = await request('POST', `${baseUrl}/api/v1/tenants`, adminKey, { name: `smoke-${port}` });
    if (tenant.status === 201) {
      tenantName = `smoke-${port}`;
      note(`created tenant ${tenant.json?.id} through the API`);
    } else {
      note(`POST /api/v1/tenants answered ${tenant.status}: checking the admin key and the migrations only`);
    }

    // 3. A second process on the same DATA_DIR is refused, with the reason.
    const secondPort = await freePort();
    const t2 = Date.now();
    const second = npmStart('second process on the same DATA_DIR', userEnv(dataDir, secondPort));
    const bound = new Promise((r) => setTimeout(() => r('timeout'), FIRST_READY_MS).unref());
    const secondExit = await Promise.race([second.exited, bound]);
    if (secondExit === 'timeout') fail('a second process on the same DATA_DIR was not refused');
    if (secondExit.code === 0) fail('a second process on the same DATA_DIR exited 0');
    if (!/DATA_DIR .* is in use by process \d+/.test(second.stderr)) {
      fail('a second process on the same DATA_DIR did not say that DATA_DIR is in use');
    }
    if (/\n\s+at /.test(second.stderr)) fail('the refusal printed a stack trace');
    timings.push(['second process refused', Date.now() - t2]);
    if ((await fetch(`${baseUrl}/health/ready`)).status !== 200) fail('the first process is not ready after the refusal');

    // 4. SIGTERM stops it with exit code 0 and releases the DATA_DIR.
    timings.push(['SIGTERM to exit 0', await stop(first)]);
    if (existsSync(join(dataDir, 'embedded.lock'))) fail('the DATA_DIR lock was left behind after a clean stop');
    const onDisk = await readEmbedded(dataDir, tenantName);
    const names = onDisk.migrations.map((m) => m.migration_name);
    if (JSON.stringify(names) !== JSON.stringify(expectedMigrations)) {
      fail(`applied migrations on disk ${JSON.stringify(names)}, expected ${JSON.stringify(expectedMigrations)}`);
    }
    if (tenantName && onDisk.tenants !== 1) fail('the tenant created through the API is not on disk');

    // 5. Restart on the same DATA_DIR: quick, same key, same data, nothing re-applied.
    const restarted = npmStart('restart', env);
    timings.push(['restart, ready (same DATA_DIR)', await waitReady(restarted, baseUrl, RESTART_READY_MS)]);
    if (readFileSync(keyFile, 'utf8').trim() !== adminKey) fail('the admin key file changed across the restart');
    if (restarted.stdout.includes('database migrations applied')) fail('the restart applied migrations again');
    if (tenantName) {
      const list = await request('GET', `${baseUrl}/api/v1/tenants`, adminKey);
      if (list.status !== 200 || !list.text.includes(tenantName)) {
        fail(`the tenant is not listed after the restart (GET /api/v1/tenants answered ${list.status})`);
      }
    }
    timings.push(['SIGTERM to exit 0 (restart)', await stop(restarted)]);
    const after = await readEmbedded(dataDir, tenantName);
    if (JSON.stringify(after.migrations) !== JSON.stringify(onDisk.migrations)) {
      fail('the _prisma_migrations rows changed across the restart');
    }
    note(
      `data kept across the restart: admin key file, ${after.migrations.length} migration row(s)` +
        (tenantName ? ', the tenant' : ''),
    );
  } finally {
    // A failed step can leave a process writing into DATA_DIR: it is stopped first, so that removing the
    // directory cannot fail and hide the step's own failure.
    await Promise.all(
      started.map(async (proc) => {
        try {
          process.kill(-proc.child.pid, 'SIGKILL');
        } catch {
          return; // already gone
        }
        await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 5000).unref())]);
      }),
    );
    try {
      rmSync(dataDir, { recursive: true, force: true });
    } catch (err) {
      note(`could not remove ${dataDir}: ${err.message}`);
    }
  }
}

function report() {
  const width = Math.max(...timings.map(([name]) => name.length));
  for (const [name, ms] of timings) process.stdout.write(`  ${name.padEnd(width)}  ${(ms / 1000).toFixed(2)} s\n`);
}

main()
  .then(() => {
    note('passed');
    report();
    process.exit(0);
  })
  .catch(async (err) => {
    process.stderr.write(`smoke: FAILED: ${err instanceof SmokeFailure ? err.message : (err && err.stack) || err}\n`);
    for (const proc of started) {
      process.stderr.write(`--- ${proc.label}: stdout ---\n${proc.stdout.slice(-8000)}\n--- stderr ---\n${proc.stderr.slice(-4000)}\n`);
      try {
        process.kill(-proc.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    report();
    process.exit(1);
  });
