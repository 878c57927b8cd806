'use strict';
// Section "idle": resident memory of the embedded default as a new user runs it (`npm start`: the node flags of
// package.json config.nodeFlags, its malloc settings, no DATABASE_URL, no REDIS_URL, a new DATA_DIR) with 10 servers
// registered (5 stdio, 5 Streamable HTTP), discovered and idle; then once more after a restart on the same DATA_DIR.
// What PGlite holds is measured twice: as the difference with the same process on this machine's PostgreSQL
// (DATABASE_URL set, the queue still in the database, so that only the embedded database differs), and as the
// WebAssembly memories only the embedded process has (from /proc/<pid>/smaps). The floor is a bare node process
// started with the same flags.
const fs = require('node:fs');
const path = require('node:path');
const { log, sleep, round } = require('../lib/util');
const { startNode, stop, memoryOf } = require('../lib/processes');
const { cpuMsOf } = require('../lib/cpu');
const { Platform, createDatabase, dropDatabase, ROOT, MALLOC_ENV, mallocSettings } = require('../lib/platform');

const START_FLAGS = require('../../package.json').config.nodeFlags.split(' ').filter(Boolean);
const CONNECTED = 'MCP_SERVER_CONNECTION_STATUS_CONNECTED';
const DISCOVERING = 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING';
const HTTP_SERVERS = 5;
/** Idle: the process spends under this share of one core over a window of IDLE_WINDOW_MS. */
const IDLE_CPU_SHARE = 0.02;
const IDLE_WINDOW_MS = 2000;
const IDLE_WAIT_MS = 60_000;
/** A reservation this large is a WebAssembly memory's (V8 reserves about 10 GiB for each). */
const WASM_RESERVATION_KIB = 4 * 1024 * 1024;

const pkgMain = (name) => path.join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

/** The 10 registrations: the fixture's HTTP servers, and the MCP reference servers over stdio. */
function registrations(ctx) {
  const http = Array.from({ length: HTTP_SERVERS }, (_, i) => ({
    name: `idle-http-${i}`,
    kind: 'MCP_SERVER_KIND_BUILT_IN',
    transport: 'streamable-http',
    url: `${ctx.fixture.base}/s/${i}/mcp`,
  }));
  const stdio = [
    ...[0, 1, 2].map((i) => ({ name: `idle-everything-${i}`, args: [pkgMain('server-everything'), 'stdio'] })),
    ...[0, 1].map((i) => ({ name: `idle-memory-${i}`, args: [pkgMain('server-memory')], env: { MEMORY_FILE_PATH: `memory-${i}.jsonl` } })),
  ].map((s) => ({ kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'stdio', command: process.execPath, ...s }));
  return [...http, ...stdio];
}

/**
 * The process's WebAssembly memories, from /proc/<pid>/smaps: V8 reserves each one as a guard region, the pages in
 * use (read-write) and the rest of its reservation (no access), about 10 GiB in all. Answers each memory's size in
 * use and resident part, in MiB, largest first.
 */
function wasmMemoriesOf(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return null;
  }
  const maps = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (m) maps.push({ start: BigInt('0x' + m[1]), end: BigInt('0x' + m[2]), perms: m[3], anonymous: m[4] === '0' && !m[5], rssKiB: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && maps.length) maps[maps.length - 1].rssKiB = Number(rss[1]);
  }
  const kib = (m) => Number((m.end - m.start) / 1024n);
  const reserved = (m) => m && m.anonymous && m.perms === '---p';
  const found = [];
  for (let i = 1; i < maps.length - 1; i++) {
    const [before, m, after] = [maps[i - 1], maps[i], maps[i + 1]];
    if (!m.anonymous || !m.perms.startsWith('rw') || !reserved(before) || !reserved(after)) continue;
    if (before.end !== m.start || m.end !== after.start) continue;
    if (kib(before) + kib(m) + kib(after) < WASM_RESERVATION_KIB) continue;
    found.push({ sizeMiB: round(kib(m) / 1024, 1), rssMiB: round(m.rssKiB / 1024, 1) });
  }
  return found.sort((a, b) => b.rssMiB - a.rssMiB);
}

function threadsOf(pid) {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  } catch {
    return null;
  }
}

/** The pids of a process's descendants (its stdio servers), from /proc. */
function descendantsOf(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** Waits until the process spends under IDLE_CPU_SHARE of a core over IDLE_WINDOW_MS; answers the share seen. */
async function waitIdle(pid) {
  const deadline = Date.now() + IDLE_WAIT_MS;
  let share = null;
  while (Date.now() < deadline) {
    const before = cpuMsOf(pid);
    await sleep(IDLE_WINDOW_MS);
    share = (cpuMsOf(pid) - before) / IDLE_WINDOW_MS;
    if (share < IDLE_CPU_SHARE) return { idle: true, cpuShare: round(share, 3) };
  }
  return { idle: false, cpuShare: round(share, 3) };
}

/** Waits until every registered server is CONNECTED (or none is DISCOVERING any more). */
async function waitConnected(platform, ids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let servers = [];
  while (Date.now() < deadline) {
    servers = await Promise.all(ids.map((id) => platform.http.expect('GET', `/api/v1/servers/${id}`)));
    if (servers.every((s) => s.status !== DISCOVERING)) break;
    await sleep(250);
  }
  const notConnected = servers.filter((s) => s.status !== CONNECTED).map((s) => `${s.name}: ${s.status.replace('MCP_SERVER_CONNECTION_STATUS_', '')} (${s.statusReason ?? ''})`);
  return { connected: servers.filter((s) => s.status === CONNECTED).length, tools: servers.reduce((a, s) => a + (s.toolCount ?? 0), 0), notConnected };
}

/** Waits for the servers and for quiet, then reads the process's memory. */
async function settledMemory(ctx, platform, ids, servers) {
  const pid = platform.pids().api;
  const discovered = await waitConnected(platform, ids, ctx.quick ? 90_000 : 180_000);
  const idle = await waitIdle(pid);
  const mem = memoryOf(pid);
  const children = descendantsOf(pid).map(memoryOf).filter(Boolean);
  return {
    servers,
    transports: { 'streamable-http': HTTP_SERVERS, stdio: servers - HTTP_SERVERS },
    ...discovered,
    ...idle,
    rssMiB: mem?.rssMiB ?? null,
    peakMiB: mem?.peakMiB ?? null,
    threads: threadsOf(pid),
    wasmMemories: wasmMemoriesOf(pid),
    stdioChildren: { processes: children.length, rssMiB: round(children.reduce((a, c) => a + (c.rssMiB ?? 0), 0), 1) },
  };
}

/**
 * One platform: started as `npm start` starts on a new DATA_DIR, 10 servers registered, discovered, idle; its memory
 * read. With `restart`, it is then stopped and started again on the same DATA_DIR (every later `npm start`), and read
 * again once its servers are discovered again and it is idle.
 */
async function measure(ctx, tag, extraEnv = {}, { restart = false } = {}) {
  const platform = new Platform({ mode: 'embedded', tag, logDir: ctx.logDir, env: extraEnv });
  try {
    log(`idle [${tag}]: starting the registry`);
    await platform.start({ nodeOptions: ctx.nodeOptions });
    const startedRssMiB = memoryOf(platform.pids().api)?.rssMiB ?? null;
    const regs = registrations(ctx);
    const created = await platform.http.expect('POST', '/api/v1/servers/batch', { servers: regs }, [201]);
    const ids = created.servers.map((s) => s.id);
    const first = { startedRssMiB, ...(await settledMemory(ctx, platform, ids, regs.length)) };
    if (!restart) return first;
    await platform.stop();
    log(`idle [${tag}]: starting the registry again on the same DATA_DIR`);
    await platform.start({ nodeOptions: ctx.nodeOptions });
    const again = { startedRssMiB: memoryOf(platform.pids().api)?.rssMiB ?? null, ...(await settledMemory(ctx, platform, ids, regs.length)) };
    return { ...first, restart: again };
  } finally {
    await platform.stop();
  }
}

/** A bare node process with the same flags: what Node itself holds before the registry loads anything. */
async function bareNode(ctx) {
  const proc = startNode('idle-bare-node', ['-e', 'setInterval(() => {}, 1 << 30)'], {
    env: { ...process.env, ...MALLOC_ENV },
    cwd: ROOT,
    logDir: ctx.logDir,
    nodeOptions: START_FLAGS,
  });
  try {
    await sleep(500);
    return memoryOf(proc.pid)?.rssMiB ?? null;
  } finally {
    await stop(proc);
  }
}

async function run(ctx) {
  const floorRssMiB = await bareNode(ctx);
  const embedded = await measure(ctx, 'idle-embedded', {}, { restart: true });
  let external = null;
  if (ctx.stores.postgres) {
    const database = await createDatabase('idle');
    try {
      external = await measure(ctx, 'idle-postgresql', { DATABASE_URL: database.url });
    } finally {
      await dropDatabase(database.name).catch(() => undefined);
    }
  }
  const wasmRss = (r) => (r?.wasmMemories ? round(r.wasmMemories.reduce((a, w) => a + w.rssMiB, 0), 1) : null);
  return {
    mode: 'embedded',
    startedWith: `node ${START_FLAGS.join(' ')} (package.json config.nodeFlags), ${mallocSettings()}, no DATABASE_URL, no REDIS_URL`,
    floorRssMiB,
    embedded,
    ...(external ? { onPostgresql: external } : { onPostgresql: { notAvailable: 'PostgreSQL does not answer' } }),
    // What the embedded database costs the process, at its first start and at a later one: everything over the same
    // process on PostgreSQL (its thread, its WebAssembly memories and code, its socket server), and of that the
    // WebAssembly memories the process has only on the embedded database (the others, in both, are the libraries' own).
    pglite: Object.fromEntries(
      [
        ['firstStart', embedded],
        ['restart', embedded.restart],
      ].map(([when, r]) => [
        when,
        {
          differenceMiB: external?.rssMiB && r?.rssMiB ? round(r.rssMiB - external.rssMiB, 1) : null,
          wasmRssMiB: wasmRss(r) !== null && wasmRss(external) !== null ? round(wasmRss(r) - wasmRss(external), 1) : wasmRss(r),
        },
      ]),
    ),
  };
}

module.exports = { run, bareNode };
