'use strict';
// Turns the sections' figures into the printed table, the list of targets, and bench/results.json.

const { round } = require('./util');
const { FAR_MS } = require('../sections/discovery');
const NA = (why) => `not available: ${why}`;


function fmtMs(x) {
  if (x === null || x === undefined) return '-';
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x >= 100 ? x.toFixed(0) : x.toFixed(2)} ms`;
}
/** A difference in ms with its sign: +1.20, -0.81. */
const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
const fmtRatio = (x) => (x === null || x === undefined ? '-' : `${x.toFixed(2)}x`);
const fmtRps = (x) => (x === null || x === undefined ? '-' : `${Math.round(x)} req/s`);
const fmtMiB = (x) => (x === null || x === undefined ? '-' : `${x.toFixed(0)} MiB`);
const fmtShare = (x) => (x === null || x === undefined ? '-' : x.toFixed(3));
const metOf = (value, cmp, limit) => (value === null || value === undefined ? null : cmp === '<=' ? value <= limit : value >= limit);

/** Builds the table rows and the targets from the figures. */
function build(figures) {
  const rows = [];
  const targets = [];
  const row = (r) => rows.push({ figure: r.figure, mode: r.mode ?? '', value: r.value ?? '-', floor: r.floor ?? '', ratio: r.ratio ?? '', target: r.target ?? '', met: r.met === undefined || r.met === null ? (r.target ? 'n/a' : '') : r.met ? 'yes' : 'NO' });
  /**
   * A target: `value` against `limit`, where both are ratios to (or differences from) a floor measured in the same
   * run, or absolute where no floor exists. `floor` says what the value was compared with, for the table and the JSON.
   */
  const target = (name, value, cmp, limit, unit, mode, note, floor) => {
    const met = metOf(value, cmp, limit);
    targets.push({ name, value: value ?? null, target: `${cmp} ${limit}${unit}`, met, ...(floor !== undefined ? { floor } : {}), ...(mode ? { mode } : {}), ...(note ? { note } : {}) });
    return met;
  };

  // 1. discovery
  const d = figures.discovery;
  /** CPU per server of the kept runs, by process: the cost behind the ratio, whatever the machine's speed. */
  const cpuRow = (r, servers) => {
    if (!r.cpuMs || !r.floorCpuMs || r.platformMs === null) return;
    const per = (v) => round(v / servers, 1);
    const parts = Object.entries(r.cpuMs)
      .filter(([k]) => k !== 'total')
      .map(([k, v]) => `${k} ${per(v)}`)
      .join(', ');
    row({
      figure: '  CPU ms per server, by process',
      mode: r.mode,
      value: `${per(r.cpuMs.total)} (${parts})`,
      floor: `${per(r.floorCpuMs.total)} (client ${per(r.floorCpuMs.client)}, fixtures ${per(r.floorCpuMs.fixtures)})`,
      ratio: fmtRatio(r.cpuMs.total / r.floorCpuMs.total),
    });
  };
  if (!d || d.notAvailable) {
    row({ figure: 'discovery', value: NA(d?.notAvailable ?? 'not run') });
    target('discovery: platform time <= 1.3 x bare SDK floor', null, '<=', 1.3, 'x floor', null, d?.notAvailable ?? 'not run');
    target('discovery: embedded default <= 2 x its bare SDK floor', null, '<=', 2, 'x floor', null, d?.notAvailable ?? 'not run');
    target(`discovery: second worker's speedup, servers ${FAR_MS} ms away, >= 0.9 x the floor's own`, null, '>=', 0.9, 'x floor', null, d?.notAvailable ?? 'not run');
  } else {
    for (const r of d.runs) {
      const how = `${r.registerBy === 'single' ? ', one POST per server' : ''}${r.rttMs ? `, servers ${r.rttMs} ms away` : ''}`;
      const name = `discovery ${d.servers} servers x ${d.toolsPerServer} tools, ${r.mode === 'embedded' ? 'embedded (api+worker in one process)' : `${r.workers} worker${r.workers > 1 ? 's' : ''}`}, concurrency ${r.concurrency ?? '-'}${how}`;
      if (r.informational) {
        // Shown beside the measured targets: the same run with a request per registration, or with servers far away.
        row({ figure: name, mode: r.mode, value: r.notAvailable ? NA(r.notAvailable) : r.platformMs === null ? 'incomplete' : fmtMs(r.platformMs), floor: fmtMs(r.floorMs), ratio: fmtRatio(r.ratio) });
        continue;
      }
      const limit = r.mode === 'embedded' ? 2 : 1.3;
      if (r.notAvailable) {
        row({ figure: name, mode: r.mode, value: NA(r.notAvailable), target: `<= ${limit}x floor` });
        target(`discovery: platform / floor (${r.label})`, null, '<=', limit, 'x floor', r.mode, r.notAvailable);
        continue;
      }
      const others = Object.entries(r.statuses ?? {})
        .filter(([k]) => !k.endsWith('_CONNECTED'))
        .map(([k, v]) => `${v} ${k.replace('MCP_SERVER_CONNECTION_STATUS_', '')}`)
        .join(', ');
      const refused = r.registrationsRefused ? `; ${r.registrationsRefused} registrations refused (${r.registrationError.slice(0, 60)}…)` : '';
      const incomplete = r.platformMs === null ? ` (${r.connected}/${r.servers} connected${others ? `; ${others}` : ''}${refused}${r.timedOut ? '; timed out' : ''})` : '';
      const met = target(`discovery: platform / floor (${r.label})`, r.ratio, '<=', limit, 'x floor', r.mode, r.platformMs === null ? `not every server was connected${incomplete}` : undefined, r.floorMs === undefined ? undefined : `bare SDK ${fmtMs(r.floorMs)}`);
      // Servers left unconnected are a miss, not a figure that could not be taken.
      if (r.platformMs === null) targets[targets.length - 1].met = false;
      row({ figure: name, mode: r.mode, value: r.platformMs === null ? `incomplete${incomplete}` : fmtMs(r.platformMs), floor: fmtMs(r.floorMs), ratio: fmtRatio(r.ratio), target: `<= ${limit}x floor`, met: r.platformMs === null ? false : met });
      cpuRow(r, d.servers);
    }
    const one = d.runs.find((r) => r.mode !== 'embedded' && r.workers === 1 && !r.notAvailable && !r.informational);
    const two = d.runs.find((r) => r.mode !== 'embedded' && r.workers === 2 && !r.notAvailable && !r.informational);
    const floorSpeedup = one && two ? one.floorMs / two.floorMs : null;
    const why = !one || !two ? 'needs the 1- and 2-worker runs' : undefined;
    // On loopback a second worker on the same two cores measures the cores, not the platform: reported, no target.
    row({
      figure: 'discovery speedup, 2 workers over 1 (floor: bare SDK at 32 over 16)',
      mode: d.speedupMode ?? '',
      value: d.workerSpeedup === null ? NA(why ?? 'a run did not complete') : fmtRatio(d.workerSpeedup),
      floor: floorSpeedup === null ? '' : fmtRatio(floorSpeedup),
      ratio: d.workerSpeedup === null || floorSpeedup === null ? '' : fmtRatio(d.workerSpeedup / floorSpeedup),
    });
    // With the servers far away discovery waits more than it computes: there a second worker must add what a second
    // bare SDK client adds.
    const far = d.farWorkerSpeedup;
    const farName = `discovery: second worker's speedup, servers ${FAR_MS} ms away, >= 0.9 x the floor's own`;
    if (far) {
      const ratio = round(far.platform / far.floor, 3);
      const m = target(farName, ratio, '>=', 0.9, 'x floor', d.speedupMode, undefined, `bare SDK at 32 over 16: ${fmtRatio(far.floor)}`);
      row({
        figure: `discovery speedup, 2 workers over 1, servers ${far.rttMs} ms away (floor: bare SDK at 32 over 16)`,
        mode: d.speedupMode ?? '',
        value: fmtRatio(far.platform),
        floor: fmtRatio(far.floor),
        ratio: fmtRatio(ratio),
        target: '>= 0.9x floor',
        met: m,
      });
    } else {
      target(farName, null, '>=', 0.9, 'x floor', d.speedupMode, `needs the 1- and 2-worker runs with the servers ${FAR_MS} ms away (PostgreSQL and Redis)`);
      row({ figure: `discovery speedup, 2 workers over 1, servers ${FAR_MS} ms away`, mode: d.speedupMode ?? '', value: NA('not run'), target: '>= 0.9x floor' });
    }
  }

  // 2. read path
  const rp = figures.readPath;
  const endpoints = [
    ['getServerInfo', 'POST /api/v1/llm/mcp-get-server-info'],
    ['listServers', 'GET /api/v1/servers'],
  ];
  if (!rp || rp.notAvailable) {
    row({ figure: 'read path', value: NA(rp?.notAvailable ?? 'not run') });
    for (const [, label] of endpoints) {
      target(`read path: ${label} req/s >= 0.6 x /health/live`, null, '>=', 0.6, 'x floor', null, rp?.notAvailable ?? 'not run');
      target(`read path: ${label} p99 <= 1.5 x /health/live p99`, null, '<=', 1.5, 'x floor', null, rp?.notAvailable ?? 'not run');
    }
  } else {
    const size = `${rp.servers} servers / ${rp.tools} tools, ${rp.connections} connections`;
    const cpu = (x) => (x?.cpuUsPerRequest ? `, ${x.cpuUsPerRequest} µs api CPU each` : '');
    row({ figure: `read path floor: GET /health/live (${size})`, mode: rp.mode, value: `${fmtRps(rp.floor.rps)}${cpu(rp.floor)}, p50 ${rp.floor.p50} ms, p99 ${rp.floor.p99} ms` });
    for (const [key, label] of endpoints) {
      const e = rp.endpoints[key];
      if (!e || e.notAvailable) {
        row({ figure: `read path: ${label}`, mode: rp.mode, value: NA(e?.notAvailable ?? 'not run') });
        target(`read path: ${label} req/s >= 0.6 x /health/live`, null, '>=', 0.6, 'x floor', rp.mode, e?.notAvailable ?? 'not run');
        target(`read path: ${label} p99 <= 1.5 x /health/live p99`, null, '<=', 1.5, 'x floor', rp.mode, e?.notAvailable ?? 'not run');
        continue;
      }
      const errors = e.okShare < 1 ? ` (${((1 - e.okShare) * 100).toFixed(1)}% not 2xx)` : '';
      const m1 = target(`read path: ${label} req/s >= 0.6 x /health/live`, e.ratio, '>=', 0.6, 'x floor', rp.mode, undefined, `GET /health/live ${fmtRps(rp.floor.rps)}`);
      row({ figure: `read path: ${label} throughput`, mode: rp.mode, value: fmtRps(e.rps) + cpu(e) + errors, floor: fmtRps(rp.floor.rps) + cpu(rp.floor), ratio: fmtRatio(e.ratio), target: '>= 0.6x floor', met: m1 });
      // The floor's own p99 under the same load: what the machine's tail is, whatever its speed.
      const p99Ratio = rp.floor.p99 > 0 ? round(e.p99 / rp.floor.p99, 3) : null;
      const m2 = target(`read path: ${label} p99 <= 1.5 x /health/live p99`, p99Ratio, '<=', 1.5, 'x floor', rp.mode, undefined, `GET /health/live p99 ${rp.floor.p99} ms`);
      row({ figure: `read path: ${label} latency p50 / p99`, mode: rp.mode, value: `${e.p50} / ${e.p99} ms`, floor: `${rp.floor.p50} / ${rp.floor.p99} ms`, ratio: `p99 ${fmtRatio(p99Ratio)}`, target: 'p99 <= 1.5x floor p99', met: m2 });
    }
    const first = rp.firstAnswers;
    if (first) {
      const missed = first.answerCache?.miss ?? null;
      row({
        figure: `read path: POST /api/v1/llm/mcp-get-server-info, first answers (${first.requests} requests${missed === null ? '' : `, ${missed} read from PostgreSQL`})`,
        mode: rp.mode,
        value: `${fmtRps(first.rps)}${cpu(first)}, p50 ${first.p50} ms, p99 ${first.p99} ms`,
      });
    }
  }

  // 3. search
  const s = figures.search ?? {};
  const lib = s.library;
  const HTTP_ADDED_P99_MS = 8;
  const LIB_P99_MS = 5;
  for (const h of s.http ?? []) {
    if (h.notAvailable) {
      row({ figure: `search over HTTP at ${h.tools} tools`, mode: s.mode, value: NA(h.notAvailable) });
      continue;
    }
    const big = h.tools >= 100_000;
    row({
      figure: `search over HTTP at ${h.tools} tools, p50 / p99 per query`,
      mode: s.mode,
      value: `${h.p50.toFixed(2)} / ${h.p99.toFixed(2)} ms`,
      floor: `${h.floor.p50.toFixed(2)} / ${h.floor.p99.toFixed(2)} ms`,
      ratio: `p99 ${signed(h.p99 - h.floor.p99)} ms`,
      target: big ? `p99 <= floor p99 +${HTTP_ADDED_P99_MS} ms` : '',
      met: big ? metOf(h.p99 - h.floor.p99, '<=', HTTP_ADDED_P99_MS) : undefined,
    });
  }
  if (lib && !lib.notAvailable) {
    for (const z of lib.sizes) {
      const big = z.tools >= 100_000;
      row({ figure: `search in process (search lib) at ${z.tools} tools, p50 / p99`, mode: 'in process', value: `${z.p50Ms.toFixed(2)} / ${z.p99Ms.toFixed(2)} ms`, floor: 'none (no I/O)', target: big ? `p99 <= ${LIB_P99_MS} ms` : '', met: big ? metOf(z.p99Ms, '<=', LIB_P99_MS) : undefined });
    }
  } else {
    row({ figure: 'search in process (search lib)', value: NA(lib?.notAvailable ?? 'not run') });
  }
  const http100k = (s.http ?? []).find((h) => h.tools >= 100_000 && !h.notAvailable);
  const lib100k = lib && !lib.notAvailable ? lib.sizes.find((z) => z.tools >= 100_000) : null;
  const httpName = `search over HTTP: p99 <= the floor's p99 + ${HTTP_ADDED_P99_MS} ms at 100,000 tools (value: p99 over the floor's)`;
  if (http100k) target(httpName, round(http100k.p99 - http100k.floor.p99, 3), '<=', HTTP_ADDED_P99_MS, ' ms over floor', s.mode, undefined, `GET /health/live round trip p99 ${http100k.floor.p99.toFixed(2)} ms`);
  else target(httpName, null, '<=', HTTP_ADDED_P99_MS, ' ms over floor', s.mode ?? null, 'the HTTP endpoint was not measured at 100,000 tools');
  const libName = `search: p99 <= ${LIB_P99_MS} ms at 100,000 tools (search lib in process)`;
  if (lib100k) target(libName, lib100k.p99Ms, '<=', LIB_P99_MS, ' ms', 'in process', undefined, null);
  else target(libName, null, '<=', LIB_P99_MS, ' ms', 'in process', lib?.notAvailable ?? 'not run', null);
  const hr = s.httpRecall;
  if (hr && !hr.notAvailable) {
    const ho = hr.holdout ? `; holdout ${hr.holdout.queries}: ${fmtShare(hr.holdout.recallAt1)} / ${fmtShare(hr.holdout.recallAt5)}` : '';
    row({ figure: `search recall@1 / recall@5 over HTTP on bench/eval (${hr.queries} queries${ho})`, mode: s.mode, value: `${fmtShare(hr.recallAt1)} / ${fmtShare(hr.recallAt5)}` });
  } else if (hr) {
    row({ figure: 'search recall over HTTP on bench/eval', mode: s.mode, value: NA(hr.notAvailable) });
  }
  if (lib && !lib.notAvailable) {
    const e = lib.evaluation;
    const three = (x) => (x && x.queries ? `${fmtShare(x.recallAt1)} / ${fmtShare(x.recallAt5)} / ${fmtShare(x.mrr)}` : '-');
    const splits = [
      ['train', 'training part (tuned on)'],
      ['holdout', 'holdout (never tuned on)'],
      ['hardHoldout', 'hard queries of the holdout'],
      ['hardTrain', 'hard queries of the training part'],
    ];
    for (const [key, label] of splits) {
      const x = e[key];
      if (!x) continue;
      const isHoldout = key === 'holdout';
      row({
        figure: `search recall@1 / recall@5 / MRR in process, bench/eval ${label}: ${x.queries} queries${e.servers === undefined ? '' : `, ${e.servers} servers, ${e.tools} tools`}`,
        mode: 'in process',
        value: three(x),
        floor: e.bm25 ? `plain BM25 ${three(e.bm25[key])}` : '',
        target: isHoldout ? 'recall@1 >= 0.8, recall@5 >= 0.95' : '',
        met: isHoldout ? x.queries > 0 && x.recallAt1 >= 0.8 && x.recallAt5 >= 0.95 : undefined,
      });
    }
    const h = e.holdout;
    // Plain BM25 over the same tools is the floor the ranking is compared with.
    const bm25 = (k) => (e.bm25?.holdout ? `plain BM25 ${fmtShare(e.bm25.holdout[k])}` : null);
    target('search: recall@1 >= 0.8 on the bench/eval holdout (search lib in process)', h ? h.recallAt1 : null, '>=', 0.8, '', 'in process', undefined, bm25('recallAt1'));
    target('search: recall@5 >= 0.95 on the bench/eval holdout (search lib in process)', h ? h.recallAt5 : null, '>=', 0.95, '', 'in process', undefined, bm25('recallAt5'));
  } else {
    target('search: recall@1 >= 0.8 on the bench/eval holdout', null, '>=', 0.8, '', null, lib?.notAvailable ?? 'not run');
    target('search: recall@5 >= 0.95 on the bench/eval holdout', null, '>=', 0.95, '', null, lib?.notAvailable ?? 'not run');
  }

  // 4. call overhead: what the registry adds at p50 over the same call made directly from the same kind of
  // client (runs before 2026-12-04 measured mcp-call-tool against the SDK's direct call, and have no directPlain)
  const c = figures.callOverhead;
  const CALLS = [
    ['mcp', 'call_tool through /mcp', '/mcp call_tool', 'addedMcp', 1.5, 'direct'],
    ['rpc', 'POST /api/v1/llm/mcp-call-tool', 'mcp-call-tool RPC', 'addedRpc', 1, c?.directPlain?.p50 !== undefined ? 'directPlain' : 'direct'],
  ];
  const CLIENT_OF = { direct: 'the SDK client', directPlain: 'a plain HTTP client' };
  for (const [key, label, short, addedKey, limit, floorKey] of CALLS) {
    const name = `call overhead: <= ${limit} ms added at p50 (${short})`;
    const st = c && !c.notAvailable ? c[key] : null;
    const added = c?.[addedKey];
    const base = c?.[floorKey];
    if (!st || st.notAvailable || !added || !base || base.notAvailable) {
      const why = c?.notAvailable ?? st?.notAvailable ?? base?.notAvailable ?? (c ? 'no direct call to measure it against' : 'not run');
      row({ figure: `tool call: ${label}`, mode: c?.mode ?? '', value: NA(why) });
      target(name, null, '<=', limit, ' ms over floor', c?.mode ?? null, why);
      continue;
    }
    const floor = `${base.p50.toFixed(2)} / ${base.p99.toFixed(2)} ms direct, ${CLIENT_OF[floorKey]}`;
    const met = target(name, added.p50, '<=', limit, ' ms over floor', c.mode, undefined, `the same call made directly with ${CLIENT_OF[floorKey]}, p50 ${base.p50.toFixed(2)} ms`);
    row({ figure: `tool call: ${label}, added ms p50 / p99`, mode: c.mode, value: `${signed(added.p50)} / ${signed(added.p99)} ms`, floor, target: `p50 <= +${limit} ms`, met });
  }

  // 5. memory at 10,000 servers / 100,000 tools, after the load of the sections above
  const m = figures.memory;
  const MEMORY = [
    ['api', 300],
    ['worker', 200],
  ];
  const bare = (x) => (typeof x === 'number' ? `bare node ${fmtMiB(x)}` : '');
  if (!m || m.notAvailable) {
    row({ figure: 'memory', value: NA(m?.notAvailable ?? 'not run') });
    for (const [role, limit] of MEMORY) target(`memory: ${role} RSS <= ${limit} MiB (10,000 servers / 100,000 tools)`, null, '<=', limit, ' MiB', null, m?.notAvailable ?? 'not run');
  } else {
    const size = `${m.servers} servers / ${m.tools} tools`;
    const worst = (m.workers ?? []).reduce((a, w) => (a === null || (w?.rssMiB ?? 0) > a.rssMiB ? w : a), null);
    for (const [role, limit] of MEMORY) {
      const r = role === 'api' ? m.api : worst;
      const met = target(`memory: ${role} RSS <= ${limit} MiB (10,000 servers / 100,000 tools)`, r?.rssMiB, '<=', limit, ' MiB', m.mode, undefined, typeof m.floorRssMiB === 'number' ? bare(m.floorRssMiB) : null);
      row({ figure: `memory: ${role} RSS (${size}), peak`, mode: m.mode, value: `${fmtMiB(r?.rssMiB)}, peak ${fmtMiB(r?.peakMiB)}`, floor: bare(m.floorRssMiB), target: `<= ${limit} MiB`, met });
    }
  }

  // 6. the embedded default as a new user runs it: npm start, 10 servers discovered and idle
  const idle = figures.embeddedIdle;
  const IDLE_LIMIT = 300;
  const idleName = `memory: npm start (embedded defaults) RSS <= ${IDLE_LIMIT} MiB, 10 servers discovered and idle`;
  if (!idle || idle.notAvailable) {
    row({ figure: 'memory: npm start, 10 servers discovered and idle', mode: 'embedded', value: NA(idle?.notAvailable ?? 'not run'), target: `<= ${IDLE_LIMIT} MiB` });
    target(idleName, null, '<=', IDLE_LIMIT, ' MiB', 'embedded', idle?.notAvailable ?? 'not run');
  } else {
    const em = idle.embedded;
    const pg = idle.onPostgresql;
    const state = (r) => {
      const unfinished = r.connected < r.servers ? ` (${r.connected}/${r.servers} connected: ${r.notConnected.join('; ').slice(0, 200)})` : '';
      const busy = r.idle ? '' : ` (not idle: ${(r.cpuShare * 100).toFixed(0)}% of a core)`;
      return unfinished + busy;
    };
    const wasmOf = (r) => (r?.wasmMemories ?? []).filter((w) => w.rssMiB >= 1).map((w) => `${fmtMiB(w.rssMiB)} of ${fmtMiB(w.sizeMiB)}`).join(', ');
    // The target holds for every start: the first one on a new DATA_DIR (what a new user meets) and the later ones.
    const starts = [['first start', em, idle.pglite?.firstStart], ['restart', em.restart, idle.pglite?.restart]].filter(([, r]) => r);
    const worst = starts.reduce((a, b) => ((b[1].rssMiB ?? 0) > (a[1].rssMiB ?? 0) ? b : a));
    target(idleName, worst[1].rssMiB, '<=', IDLE_LIMIT, ' MiB', 'embedded', `${worst[0]}${state(worst[1])}`, bare(idle.floorRssMiB) || null);
    for (const [when, r, share] of starts) {
      row({
        figure: `memory: npm start (embedded), ${when}, ${r.servers} servers (${r.transports.stdio} stdio, ${r.transports['streamable-http']} HTTP) discovered and idle, peak`,
        mode: 'embedded',
        value: `${fmtMiB(r.rssMiB)}, peak ${fmtMiB(r.peakMiB)}, ${r.threads} threads${state(r)}`,
        floor: bare(idle.floorRssMiB),
        target: `<= ${IDLE_LIMIT} MiB`,
        met: metOf(r.rssMiB, '<=', IDLE_LIMIT),
      });
      row({
        figure: '  of which PGlite (over the same process on PostgreSQL; its WebAssembly memories resident)',
        mode: 'embedded',
        value: `${fmtMiB(share?.differenceMiB)}; WebAssembly ${fmtMiB(share?.wasmRssMiB)}${wasmOf(r) ? ` (${wasmOf(r)})` : ''}`,
        floor: pg && !pg.notAvailable ? `on PostgreSQL ${fmtMiB(pg.rssMiB)}` : NA(pg?.notAvailable ?? 'not run'),
      });
    }
    row({ figure: '  stdio servers (processes of their own, not counted above)', mode: 'embedded', value: `${em.stdioChildren.processes} processes, ${fmtMiB(em.stdioChildren.rssMiB)}` });
  }
  // how long an api takes to start on the seeded registry (not a target)
  const sd = figures.seeded;
  if (sd && !sd.notAvailable && typeof sd.apiStartMs === 'number') {
    const loaded = typeof sd.catalogLoadMs === 'number' ? ` (its tool catalog loaded in ${(sd.catalogLoadMs / 1000).toFixed(1)} s)` : '';
    row({ figure: `api start until ready (${sd.servers} servers / ${sd.tools} tools)`, mode: sd.mode, value: `${(sd.apiStartMs / 1000).toFixed(1)} s${loaded}` });
  }
  return { rows, targets };
}

/** The rows as a plain-text table (also valid Markdown). */
function table(rows) {
  const cols = ['figure', 'mode', 'value', 'floor', 'ratio', 'target', 'met'];
  const width = Object.fromEntries(cols.map((c) => [c, Math.max(c.length, ...rows.map((r) => String(r[c]).length))]));
  const line = (r) => `| ${cols.map((c) => String(r[c]).padEnd(width[c])).join(' | ')} |`;
  return [line(Object.fromEntries(cols.map((c) => [c, c]))), `|${cols.map((c) => '-'.repeat(width[c] + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

module.exports = { build, table };
