'use strict';
// Section 1, discovery throughput: N fixture servers registered at once, timed until every one is CONNECTED
// with its 20 tools stored, against the floor of a bare SDK client doing connect, list every page, close for
// the same servers at the same concurrency (DISCOVERY_CONCURRENCY x workers).
const path = require('node:path');
const { Client } = require('pg');
const { log, sleep, ms, mapLimit, round } = require('../lib/util');
const { runNodeJson } = require('../lib/processes');
const { CpuMeter, pidsNamed, supported: cpuSupported } = require('../lib/cpu');
const { Platform, createDatabase, dropDatabase, queuePrefix, deleteRedisPrefix, ROOT } = require('../lib/platform');

const CONCURRENCY_PER_WORKER = 16;
const TOOLS_PER_SERVER = 20;
const REGISTER_IN_FLIGHT = 32;
/** Registrations per POST /api/v1/servers/batch (its limit). */
const BATCH = 500;
/** How long the probe server may take; the embedded default picks new jobs up only on its next sweep (up to 60 s). */
const PROBE_TIMEOUT_MS = { quick: 30_000, full: 75_000 };
/** The fixture servers of the informational runs answer each request this late, as servers across a network would. */
const FAR_MS = 100;
const CONNECTED = 'MCP_SERVER_CONNECTION_STATUS_CONNECTED';
const DISCOVERING = 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING';

/** Where a configuration's fixture servers are: on loopback, or as if `rttMs` away. */
function fixtureBase(ctx, cfg) {
  return cfg?.rttMs ? `${ctx.fixture.base}/rtt/${cfg.rttMs}` : ctx.fixture.base;
}

async function floor(ctx, concurrency, count, base = ctx.fixture.base) {
  const fixtures = new CpuMeter({ fixtures: () => [ctx.fixture.proc.pid] }).start();
  const r = await runNodeJson('discovery-floor', [path.join(__dirname, '..', 'floor', 'discovery-floor.js'), JSON.stringify({ base, count, concurrency })], {
    env: process.env,
    cwd: ROOT,
    logDir: ctx.logDir,
  });
  if (r.failed > 0) throw new Error(`the bare SDK floor failed on ${r.failed} servers: ${r.errors.join('; ')}`);
  const f = fixtures.stop();
  if (cpuSupported) r.cpuMs = { client: r.cpuMs, fixtures: f.fixtures, total: r.cpuMs + f.fixtures };
  else delete r.cpuMs;
  return r;
}

function registration(base, i, label) {
  return { name: `${label}-${i}`, kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'streamable-http', url: `${base}/s/${i}/mcp` };
}

/** Registers the probe server and waits for it: tells whether discovery works in this build at all. */
async function probe(ctx, platform) {
  const created = await platform.http.expect('POST', '/api/v1/servers', registration(ctx.fixture.base, ctx.fixture.probeIndex, 'probe'), [201]);
  const timeoutMs = PROBE_TIMEOUT_MS[ctx.quick ? 'quick' : 'full'];
  const deadline = Date.now() + timeoutMs;
  let server = created;
  while (Date.now() < deadline) {
    server = await platform.http.expect('GET', `/api/v1/servers/${created.id}`);
    if (server.status !== DISCOVERING) break;
    await sleep(200);
  }
  if (server.status === CONNECTED && server.toolCount === TOOLS_PER_SERVER) return { ok: true };
  return { ok: false, why: `a probe server was ${server.status} with ${server.toolCount} tools ${timeoutMs / 1000} s after it was registered (${server.statusReason ?? 'no reason given'})` };
}

/**
 * Counts, from the database, the servers done (CONNECTED with every tool stored) and failed. While waiting it
 * reads only the servers table (CONNECTED with tool_count 20: the platform writes the tools and the count in one
 * statement), so that the poll costs the machine next to nothing; `verify` also counts the tool rows, which
 * decides when the servers table says that everything is done.
 */
async function progressFromDb(pg, prefix, final = false, verify = false) {
  if (final) {
    const st = await pg.query(`SELECT status::text, coalesce(left(status_reason, 160), '') AS reason, count(*)::int AS n FROM servers WHERE name LIKE $1 GROUP BY 1, 2`, [`${prefix}-%`]);
    const statuses = {};
    const reasons = {};
    for (const row of st.rows) {
      statuses[`MCP_SERVER_CONNECTION_STATUS_${row.status}`] = (statuses[`MCP_SERVER_CONNECTION_STATUS_${row.status}`] ?? 0) + row.n;
      if (row.status !== 'CONNECTED') reasons[row.reason] = (reasons[row.reason] ?? 0) + row.n;
    }
    return { statuses, reasons };
  }
  const tools = verify ? ' AND (SELECT count(*) FROM tools t WHERE t.server_id = s.id) = $2' : '';
  const r = await pg.query(
    `SELECT count(*) FILTER (WHERE s.status = 'CONNECTED' AND s.tool_count = $2${tools})::int AS done,
            count(*) FILTER (WHERE s.status IN ('ERROR', 'DISCONNECTED'))::int AS failed
     FROM servers s WHERE s.name LIKE $1`,
    [`${prefix}-%`, TOOLS_PER_SERVER],
  );
  return r.rows[0];
}

/** The same from the API, for the embedded database that only the registry process reaches. */
async function progressFromApi(platform, prefix, n) {
  const pending = await platform.http.expect('GET', `/api/v1/servers?status=${DISCOVERING}&pageSize=1`);
  if (pending.servers.length > 0) return { done: 0, failed: 0, pending: true };
  let done = 0;
  let failed = 0;
  const statuses = {};
  const reasons = {};
  let token;
  for (let page = 0; page < 1000; page++) {
    const q = `/api/v1/servers?pageSize=100${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
    const body = await platform.http.expect('GET', q);
    for (const s of body.servers) {
      if (!s.name.startsWith(`${prefix}-`)) continue;
      statuses[s.status] = (statuses[s.status] ?? 0) + 1;
      if (s.status === CONNECTED && s.toolCount === TOOLS_PER_SERVER) done++;
      else {
        failed++;
        const r = String(s.statusReason ?? '').slice(0, 160);
        reasons[r] = (reasons[r] ?? 0) + 1;
      }
    }
    token = body.nextPageToken;
    if (!token) break;
  }
  // The full listing decides: the filtered query above is only the cheap early answer.
  return { done, failed, pending: done + failed < n || (statuses[DISCOVERING] ?? 0) > 0, statuses, reasons };
}

/**
 * Registers the N servers: as an operator registers a catalog, in requests of up to BATCH to
 * POST /api/v1/servers/batch, or one POST /api/v1/servers per server (REGISTER_IN_FLIGHT at a time).
 */
async function register(ctx, platform, cfg, prefix) {
  const indexes = Array.from({ length: ctx.n }, (_, i) => i);
  const base = fixtureBase(ctx, cfg);
  // A refused registration is the platform's answer: counted and reported, and the rest is still timed.
  const refused = [];
  if (cfg.registerBy === 'batch') {
    for (let i = 0; i < indexes.length; i += BATCH) {
      const chunk = indexes.slice(i, i + BATCH);
      const res = await platform.http.request('POST', '/api/v1/servers/batch', { servers: chunk.map((j) => registration(base, j, prefix)) });
      if (res.status !== 201) for (const _ of chunk) refused.push(`${res.status}: ${res.text.slice(0, 300)}`);
    }
  } else {
    await mapLimit(indexes, REGISTER_IN_FLIGHT, async (i) => {
      const res = await platform.http.request('POST', '/api/v1/servers', registration(base, i, prefix));
      if (res.status !== 201) refused.push(`${res.status}: ${res.text.slice(0, 300)}`);
    });
  }
  return refused;
}

async function timePlatform(ctx, platform, pg, cfg) {
  const n = ctx.n;
  const prefix = 'fixture';
  const pids = platform.pids();
  const roles = { api: () => [pids.api], workers: () => pids.workers, fixtures: () => [ctx.fixture.proc.pid] };
  if (platform.mode !== 'embedded') roles.postgresql = () => pidsNamed('postgres');
  if (platform.mode === 'postgresql+redis') roles.redis = () => pidsNamed('redis-server');
  const cpu = new CpuMeter(roles).start();
  const t0 = process.hrtime.bigint();
  const refused = await register(ctx, platform, cfg, prefix);
  const registerMs = ms(t0);
  const registered = n - refused.length;
  const deadline = Date.now() + (ctx.quick ? 180_000 : 600_000);
  let progress = { done: 0, failed: 0 };
  const pollErrors = [];
  while (Date.now() < deadline) {
    try {
      progress = pg ? await progressFromDb(pg, prefix) : await progressFromApi(platform, prefix, registered);
      // The servers table says everything is done: the tool rows must say so too.
      if (pg && progress.done + progress.failed >= registered) progress = await progressFromDb(pg, prefix, false, true);
      if (progress.done + progress.failed >= registered && !progress.pending) break;
    } catch (err) {
      // A failed poll is the platform's answer too (recorded), not the end of the measurement.
      pollErrors.push(err.message.split('\n')[0].slice(0, 200));
    }
    await sleep(pg ? 50 : 100);
  }
  const totalMs = ms(t0);
  const cpuMs = cpuSupported ? cpu.stop() : undefined;
  const final = pg ? await progressFromDb(pg, prefix, true) : progress;
  const notConnected = Object.keys(final.reasons ?? {}).length ? { statuses: final.statuses, reasons: final.reasons } : {};
  return { ...notConnected, ...(pollErrors.length ? { pollErrors: pollErrors.length, pollError: pollErrors[0] } : {}), registerMs: round(registerMs, 1),
    ...(refused.length ? { registrationsRefused: refused.length, registrationError: refused[0] } : {}),
    platformMs: progress.done === n ? round(totalMs, 1) : null,
    // Time until every server that was registered is connected, when some registrations were refused.
    registeredConnectedMs: refused.length && progress.done >= registered ? round(totalMs, 1) : undefined,
    connected: progress.done,
    failed: progress.failed,
    cpuMs,
    timedOut: progress.done + progress.failed < registered };
}

/** One timed platform run on a platform of its own (a new database and queue prefix): registered until all connected. */
async function platformRound(ctx, cfg, attempt) {
  const tag = `${cfg.workers}${cfg.mode === 'postgresql' ? 'pq' : ''}r${attempt}`;
  const database = cfg.mode === 'embedded' ? undefined : await createDatabase(`disc${tag}`);
  const prefix = cfg.mode === 'postgresql+redis' ? queuePrefix(`d${tag}`) : undefined;
  const platform = new Platform({
    mode: cfg.mode,
    tag: `discovery-${cfg.label.replace(/[^a-z0-9]+/gi, '-')}-${attempt}`,
    logDir: ctx.logDir,
    workers: cfg.workers,
    env: { DISCOVERY_CONCURRENCY: String(CONCURRENCY_PER_WORKER) },
    database,
    prefix,
  });
  let pg;
  try {
    log(`discovery [${cfg.label}]: starting the platform (run ${attempt})`);
    await platform.start({ nodeOptions: ctx.nodeOptions });
    const p = await probe(ctx, platform);
    if (!p.ok) return { notAvailable: p.why };
    if (database) {
      pg = new Client({ connectionString: database.url });
      await pg.connect();
    }
    log(`discovery [${cfg.label}]: registering ${ctx.n} servers (run ${attempt})`);
    return { ...(await timePlatform(ctx, platform, pg, cfg)), completion: pg ? 'database: CONNECTED rows with all 20 tool rows' : 'API: no server DISCOVERING, then every server CONNECTED with toolCount 20' };
  } finally {
    await pg?.end().catch(() => undefined);
    await platform.stop();
    if (database) await dropDatabase(database.name).catch(() => undefined);
    if (prefix) await deleteRedisPrefix(prefix).catch(() => undefined);
  }
}

/** Discoveries at once for a configuration: DISCOVERY_CONCURRENCY per worker (the embedded default has one). */
function concurrencyOf(cfg) {
  return cfg.mode === 'embedded' ? CONCURRENCY_PER_WORKER : CONCURRENCY_PER_WORKER * cfg.workers;
}

/**
 * The floor and the platform, each measured three times in a full run (floor, platform, floor, platform, ...) and
 * once in a quick one. The machine is shared and its speed moves within a run: each side keeps its best run, so
 * that neither is compared at its worst with the other at its best. A platform run that left servers unconnected is a
 * miss whatever the other run did.
 */
async function runConfig(ctx, cfg) {
  const concurrency = concurrencyOf(cfg);
  const rounds = ctx.quick ? 1 : 3;
  const floors = [];
  const platforms = [];
  for (let attempt = 1; attempt <= rounds; attempt++) {
    log(`discovery [${cfg.label}]: floor, bare SDK at concurrency ${concurrency} (run ${attempt})`);
    floors.push(await floor(ctx, concurrency, ctx.n, fixtureBase(ctx, cfg)));
    const timed = await platformRound(ctx, cfg, attempt);
    if (timed.notAvailable) return { ...cfg, concurrency, notAvailable: timed.notAvailable };
    platforms.push(timed);
  }
  const bestFloor = floors.reduce((best, f) => (f.ms < best.ms ? f : best));
  const floorMs = bestFloor.ms;
  const incomplete = platforms.find((p) => p.platformMs === null);
  const timed = incomplete ?? platforms.reduce((best, p) => (p.platformMs < best.platformMs ? p : best));
  return {
    ...cfg,
    concurrency,
    servers: ctx.n,
    toolsPerServer: TOOLS_PER_SERVER,
    floorMs: round(floorMs, 1),
    floorRunsMs: floors.map((f) => round(f.ms, 1)),
    // CPU time of each side's kept run, by process: what the platform costs the machine beyond the floor.
    floorCpuMs: bestFloor.cpuMs,
    ...timed,
    platformRunsMs: platforms.map((p) => p.platformMs),
    ratio: timed.platformMs === null ? null : round(timed.platformMs / floorMs, 3),
    registration: cfg.registerBy === 'batch' ? `BUILT_IN with the admin key, POST /api/v1/servers/batch (${BATCH} a request)` : `BUILT_IN with the admin key, one POST /api/v1/servers each (${REGISTER_IN_FLIGHT} in flight)`,
  };
}

/** What `--discovery=` chooses from: the external stores (Redis, else the PostgreSQL queue) and the embedded default. */
const MODES = ['redis', 'embedded'];

async function run(ctx) {
  const configs = [];
  const wanted = (mode) => !ctx.discoveryModes || ctx.discoveryModes.has(mode);
  if (wanted('redis') && ctx.stores.postgres && ctx.stores.redis) {
    configs.push({ label: 'PostgreSQL+Redis, 1 worker', mode: 'postgresql+redis', workers: 1, registerBy: 'batch' });
    configs.push({ label: 'PostgreSQL+Redis, 2 workers', mode: 'postgresql+redis', workers: 2, registerBy: 'batch' });
    configs.push({ label: 'PostgreSQL+Redis, 1 worker, one POST per server', mode: 'postgresql+redis', workers: 1, registerBy: 'single', informational: true });
    // Servers across a network: discovery waits on them more than it computes, so a second worker has work to add
    // even where one worker already fills the machine with servers on loopback.
    configs.push({ label: `PostgreSQL+Redis, 1 worker, servers ${FAR_MS} ms away`, mode: 'postgresql+redis', workers: 1, registerBy: 'batch', informational: true, rttMs: FAR_MS });
    configs.push({ label: `PostgreSQL+Redis, 2 workers, servers ${FAR_MS} ms away`, mode: 'postgresql+redis', workers: 2, registerBy: 'batch', informational: true, rttMs: FAR_MS });
  } else if (wanted('redis') && ctx.stores.postgres) {
    configs.push({ label: 'PostgreSQL queue, 1 worker', mode: 'postgresql', workers: 1, registerBy: 'batch' });
    configs.push({ label: 'PostgreSQL queue, 2 workers', mode: 'postgresql', workers: 2, registerBy: 'batch' });
  }
  if (wanted('embedded')) configs.push({ label: 'embedded default', mode: 'embedded', workers: 1, registerBy: 'batch' });
  // The fixture servers answer a first pass slower (their code is not yet compiled to machine code): one untimed
  // pass of the floor first, so that no timed run, floor or platform, is the first.
  log('discovery: warming the fixture servers (untimed)');
  await floor(ctx, CONCURRENCY_PER_WORKER, ctx.n);
  const runs = [];
  for (const cfg of configs) {
    try {
      runs.push(await runConfig(ctx, cfg));
    } catch (err) {
      log(`discovery [${cfg.label}] failed: ${err.message}`);
      const concurrency = concurrencyOf(cfg);
      runs.push({ ...cfg, concurrency, notAvailable: `failed: ${err.message.split('\n')[0]}` });
    }
  }
  const one = runs.find((r) => r.mode !== 'embedded' && r.workers === 1 && !r.informational);
  const two = runs.find((r) => r.mode !== 'embedded' && r.workers === 2 && !r.informational);
  const speedup = one?.platformMs && two?.platformMs ? round(one.platformMs / two.platformMs, 3) : null;
  const farOne = runs.find((r) => r.rttMs && r.workers === 1);
  const farTwo = runs.find((r) => r.rttMs && r.workers === 2);
  const farSpeedup =
    farOne?.platformMs && farTwo?.platformMs
      ? { rttMs: FAR_MS, platform: round(farOne.platformMs / farTwo.platformMs, 3), floor: round(farOne.floorMs / farTwo.floorMs, 3) }
      : null;
  return { servers: ctx.n, toolsPerServer: TOOLS_PER_SERVER, concurrencyPerWorker: CONCURRENCY_PER_WORKER, runs, workerSpeedup: speedup, speedupMode: one?.mode ?? null, farWorkerSpeedup: farSpeedup };
}

module.exports = { run, MODES, FAR_MS };
