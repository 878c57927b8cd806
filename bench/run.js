'use strict';
// `npm run bench [-- --quick] [--only=discovery,idle,read,search,call,memory] [--discovery=embedded,redis] [--no-build]
//                  [--keep-logs] [--profile]`
//
// Starts everything it measures itself: fixture MCP servers in a process of their own, the platform as
// real processes (api + workers on this machine's PostgreSQL and Redis when they answer, and the embedded
// default), load generators in processes of their own. Prints one table and writes bench/results.json.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { log, machine, round } = require('./lib/util');
const { startNodeReady, stop, stopAll, killAllNow, memoryOf } = require('./lib/processes');
const platform = require('./lib/platform');
const report = require('./lib/report');
const discovery = require('./sections/discovery');
const readPath = require('./sections/read-path');
const search = require('./sections/search');
const callOverhead = require('./sections/call-overhead');
const embeddedMemory = require('./sections/embedded-memory');
const { SeededPlatform } = require('./sections/seeded-platform');

const SECTIONS = ['discovery', 'idle', 'read', 'search', 'call', 'memory'];
const RESULTS = path.join(__dirname, 'results.json');

/** Which code was measured: the commit, and the platform's files that differed from it in the working tree. */
function sourceTree() {
  const git = (...args) => execFileSync('git', args, { cwd: platform.ROOT, encoding: 'utf8' }).trimEnd();
  try {
    const changed = git('status', '--porcelain', '--', 'apps', 'libs', 'prisma').split('\n').filter(Boolean).map((l) => l.slice(3));
    return { commit: git('rev-parse', 'HEAD'), uncommitted: changed };
  } catch {
    return { commit: null, uncommitted: [] };
  }
}

function parseArgs(argv) {
  const opts = { quick: false, only: new Set(SECTIONS), build: true, keepLogs: false, profile: false, discoveryModes: null };
  for (const a of argv) {
    if (a === '--quick') opts.quick = true;
    else if (a === '--no-build') opts.build = false;
    else if (a === '--keep-logs') opts.keepLogs = true;
    else if (a === '--profile') opts.profile = opts.keepLogs = true;
    else if (a.startsWith('--only=')) {
      const names = a.slice(7).split(',').filter(Boolean);
      for (const n of names) if (!SECTIONS.includes(n)) throw new Error(`--only: unknown section ${n} (one of ${SECTIONS.join(', ')})`);
      opts.only = new Set(names);
    } else if (a.startsWith('--discovery=')) {
      const modes = a.slice(12).split(',').filter(Boolean);
      for (const m of modes) if (!discovery.MODES.includes(m)) throw new Error(`--discovery: unknown mode ${m} (one of ${discovery.MODES.join(', ')})`);
      opts.discoveryModes = new Set(modes);
    } else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'npm run bench [-- --quick] [--only=discovery,idle,read,search,call,memory] [--discovery=embedded,redis] [--no-build] [--keep-logs] [--profile]\n' +
          '  --discovery  runs only these discovery configurations: redis (PostgreSQL+Redis, or the PostgreSQL queue\n' +
          '               when Redis does not answer) and embedded\n' +
          '  --profile  runs the api and worker processes with --cpu-prof; the profiles land in the run directory\n',
      );
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

let cleaning = null;
function cleanup() {
  cleaning ??= (async () => {
    await stopAll();
    await platform.cleanupStores();
  })();
  return cleaning;
}

/** The api's own account of its memory (from /metrics): V8 heap used and reserved, and memory outside it. */
async function heapOf(origin) {
  const text = await fetch(`${origin}/metrics`).then((r) => r.text()).catch(() => '');
  const mib = (name) => {
    const m = text.match(new RegExp(`^mcpr_${name} (\\d+(?:\\.\\d+)?(?:e\\+\\d+)?)`, 'm'));
    return m ? Math.round((Number(m[1]) / 1048576) * 10) / 10 : null;
  };
  return { heapUsedMiB: mib('nodejs_heap_size_used_bytes'), heapTotalMiB: mib('nodejs_heap_size_total_bytes'), externalMiB: mib('nodejs_external_memory_bytes') };
}

async function main(argv) {
  const opts = parseArgs(argv);
  const startedAt = Date.now();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpr-bench-'));
  log(`run directory (process logs): ${logDir}`);
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      log(`${sig}: stopping`);
      cleanup().finally(() => process.exit(130));
    });
  }
  process.once('exit', killAllNow);

  const n = opts.quick ? 100 : 500;
  const results = {
    machine: machine(),
    date: new Date().toISOString(),
    command: `npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}`,
    quick: opts.quick,
    source: sourceTree(),
    mode: null,
    figures: {},
    targets: [],
  };
  let failed = false;
  try {
    results.build = platform.ensureBuilt({ skip: !opts.build });
    const stores = { postgres: await platform.postgresAnswers(), redis: await platform.redisAnswers() };
    results.stores = {
      postgresql: stores.postgres ? platform.PG_ADMIN_URL.replace(/\/\/[^@]*@/, '//') : 'does not answer',
      redis: stores.redis ? platform.REDIS_URL : 'does not answer',
    };
    results.mode = {
      primary: stores.postgres ? (stores.redis ? 'postgresql+redis' : 'postgresql') : 'embedded',
      discovery: stores.postgres ? `${stores.redis ? 'postgresql+redis' : 'postgresql'} (1 and 2 workers) and embedded` : 'embedded only',
      seeded: stores.postgres ? `${stores.redis ? 'postgresql+redis' : 'postgresql'}: api + 1 worker` : 'not available without PostgreSQL',
    };
    log(`PostgreSQL: ${results.stores.postgresql}; Redis: ${results.stores.redis}`);

    // Fixture servers: N for discovery, one probe, one call target.
    const { proc: fixtureProc, ready } = await startNodeReady('fixtures', [path.join(__dirname, 'fixtures', 'fixture-server.js'), String(n + 2), '0'], {
      env: process.env,
      cwd: platform.ROOT,
      logDir,
    });
    const ctx = {
      quick: opts.quick,
      discoveryModes: opts.discoveryModes,
      n,
      logDir,
      stores,
      nodeOptions: opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(logDir, 'profiles')}`] : [],
      fixture: { proc: fixtureProc, port: ready.port, base: `http://127.0.0.1:${ready.port}`, probeIndex: n, callIndex: n + 1 },
    };

    if (opts.only.has('discovery')) results.figures.discovery = await discovery.run(ctx);
    if (opts.only.has('idle')) {
      try {
        results.figures.embeddedIdle = await embeddedMemory.run(ctx);
      } catch (err) {
        log(`idle: ${err.message}`);
        results.figures.embeddedIdle = { notAvailable: `failed: ${err.message.split('\n')[0]}` };
      }
    }

    const needsSeeded = ['read', 'search', 'call', 'memory'].some((s) => opts.only.has(s));
    if (needsSeeded && !stores.postgres) {
      const why = 'the seeded registry (10,000 servers, 100,000 tools) is written with SQL into PostgreSQL, which does not answer here';
      if (opts.only.has('read')) results.figures.readPath = { notAvailable: why };
      if (opts.only.has('call')) results.figures.callOverhead = { notAvailable: why };
      if (opts.only.has('memory')) results.figures.memory = { notAvailable: why };
      if (opts.only.has('search')) results.figures.search = { http: [{ tools: 100_000, notAvailable: why }] };
    } else if (needsSeeded) {
      const seeded = new SeededPlatform(ctx);
      const searchFig = { mode: seeded.mode, http: [] };
      try {
        await seeded.init();
        if (opts.only.has('search')) {
          await seeded.seedEvalSet();
          searchFig.httpRecall = await search.httpRecall(ctx, seeded);
          await seeded.grow(1_000);
          searchFig.http.push(await search.httpLatency(ctx, seeded));
        }
        await seeded.grow(10_000);
        const sized = { servers: seeded.servers, tools: seeded.tools, apiStartMs: seeded.apiStartMs, catalogLoadMs: seeded.catalogLoadMs, seedMs: seeded.seedMs };
        results.figures.seeded = { mode: seeded.mode, ...sized };
        if (opts.only.has('read')) results.figures.readPath = { mode: seeded.mode, ...(await readPath.run(ctx, seeded)) };
        if (opts.only.has('search')) searchFig.http.push(await search.httpLatency(ctx, seeded));
        if (opts.only.has('call')) {
          const c = await callOverhead.run(ctx, seeded);
          results.figures.callOverhead = { mode: seeded.mode, ...c };
        }
        if (opts.only.has('memory')) {
          const pids = seeded.platform.pids();
          results.figures.memory = {
            mode: seeded.mode,
            servers: seeded.servers,
            tools: seeded.tools,
            after: [opts.only.has('read') && 'read-path load', opts.only.has('search') && 'searches', opts.only.has('call') && 'tool calls'].filter(Boolean).join(', ') || 'start',
            startedWith: `node ${require('../package.json').config.nodeFlags} (package.json config.nodeFlags), ${require('./lib/platform').mallocSettings()}`,
            api: { ...memoryOf(pids.api), ...(await heapOf(seeded.platform.origin)) },
            workers: pids.workers.map(memoryOf),
            // What Node itself holds with the same flags, before anything is loaded: the floor beside the targets.
            floorRssMiB: await embeddedMemory.bareNode(ctx),
          };
        }
      } finally {
        await seeded.close();
      }
      if (opts.only.has('search')) results.figures.search = searchFig;
    }
    if (opts.only.has('search')) {
      results.figures.search ??= { http: [] };
      results.figures.search.library = await search.library(ctx, [10_000, 100_000]);
    }
    await stop(fixtureProc);
  } catch (err) {
    failed = true;
    log(`the run stopped: ${err.stack ?? err.message}`);
    results.error = err.message;
  } finally {
    await cleanup();
  }

  results.durationS = round((Date.now() - startedAt) / 1000, 1);
  results.machine.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  const { rows, targets } = report.build(results.figures);
  results.targets = targets;
  results.table = rows;
  fs.writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(`\n${report.table(rows)}\n\n`);
  const met = targets.filter((t) => t.met === true).length;
  const missed = targets.filter((t) => t.met === false).map((t) => t.name);
  const open = targets.filter((t) => t.met === null).length;
  process.stdout.write(`targets: ${met} met, ${missed.length} missed, ${open} not measured; ${path.relative(process.cwd(), RESULTS)} written in ${results.durationS} s (${results.mode ? results.mode.primary : 'no mode'}${opts.quick ? ', quick' : ''})\n`);
  for (const m of missed) process.stdout.write(`  missed: ${m}\n`);
  if (!failed && !opts.keepLogs) fs.rmSync(logDir, { recursive: true, force: true });
  else log(`process logs kept in ${logDir}`);
  return failed ? 1 : 0;
}

module.exports = { main };
