'use strict';
// Turns the sections' figures into the printed table, the list of targets, and bench/results.json.

const { round } = require('./util');
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
  const target = (name, value, cmp, limit, unit, mode, note) => {
    const met = metOf(value, cmp, limit);
    targets.push({ name, value: value ?? null, target: `${cmp} ${limit}${unit}`, met, ...(mode ? { mode } : {}), ...(note ? { note } : {}) });
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
    target('discovery: platform time <= 1.3 x bare SDK floor', null, '<=', 1.3, 'x', null, d?.notAvailable ?? 'not run');
    target('discovery: 2 workers >= 1.6 x faster than 1 (Redis)', null, '>=', 1.6, 'x', null, d?.notAvailable ?? 'not run');
  } else {
    for (const r of d.runs) {
      const how = `${r.registerBy === 'single' ? ', one POST per server' : ''}${r.rttMs ? `, servers ${r.rttMs} ms away` : ''}`;
      const name = `discovery ${d.servers} servers x ${d.toolsPerServer} tools, ${r.mode === 'embedded' ? 'embedded (api+worker in one process)' : `${r.workers} worker${r.workers > 1 ? 's' : ''}`}, concurrency ${r.concurrency ?? '-'}${how}`;
      if (r.informational) {
        // Shown beside the measured targets: the same run with a request per registration, or with servers far away.
        row({ figure: name, mode: r.mode, value: r.notAvailable ? NA(r.notAvailable) : r.platformMs === null ? 'incomplete' : fmtMs(r.platformMs), floor: fmtMs(r.floorMs), ratio: fmtRatio(r.ratio) });
        continue;
      }
      if (r.notAvailable) {
        row({ figure: name, mode: r.mode, value: NA(r.notAvailable), target: '<= 1.3x floor' });
        target(`discovery: platform / floor (${r.label})`, null, '<=', 1.3, 'x', r.mode, r.notAvailable);
        continue;
      }
      const others = Object.entries(r.statuses ?? {})
        .filter(([k]) => !k.endsWith('_CONNECTED'))
        .map(([k, v]) => `${v} ${k.replace('MCP_SERVER_CONNECTION_STATUS_', '')}`)
        .join(', ');
      const refused = r.registrationsRefused ? `; ${r.registrationsRefused} registrations refused (${r.registrationError.slice(0, 60)}…)` : '';
      const incomplete = r.platformMs === null ? ` (${r.connected}/${r.servers} connected${others ? `; ${others}` : ''}${refused}${r.timedOut ? '; timed out' : ''})` : '';
      const met = target(`discovery: platform / floor (${r.label})`, r.ratio, '<=', 1.3, 'x', r.mode, r.platformMs === null ? `not every server was connected${incomplete}` : undefined);
      // Servers left unconnected are a miss, not a figure that could not be taken.
      if (r.platformMs === null) targets[targets.length - 1].met = false;
      row({ figure: name, mode: r.mode, value: r.platformMs === null ? `incomplete${incomplete}` : fmtMs(r.platformMs), floor: fmtMs(r.floorMs), ratio: fmtRatio(r.ratio), target: '<= 1.3x floor', met: r.platformMs === null ? false : met });
      cpuRow(r, d.servers);
    }
    const one = d.runs.find((r) => r.mode !== 'embedded' && r.workers === 1 && !r.notAvailable && !r.informational);
    const two = d.runs.find((r) => r.mode !== 'embedded' && r.workers === 2 && !r.notAvailable && !r.informational);
    const floorSpeedup = one && two ? one.floorMs / two.floorMs : null;
    const why = !one || !two ? 'needs the 1- and 2-worker runs' : d.speedupMode !== 'postgresql+redis' ? 'Redis does not answer' : undefined;
    const met = target('discovery: 2 workers >= 1.6 x faster than 1 (Redis)', d.workerSpeedup, '>=', 1.6, 'x', d.speedupMode, why);
    row({
      figure: 'discovery speedup, 2 workers over 1 (floor: bare SDK at 32 over 16)',
      mode: d.speedupMode ?? '',
      value: d.workerSpeedup === null ? NA(why ?? 'a run did not complete') : fmtRatio(d.workerSpeedup),
      floor: floorSpeedup === null ? '' : fmtRatio(floorSpeedup),
      target: '>= 1.6x',
      met,
    });
    const far = d.farWorkerSpeedup;
    if (far) {
      row({
        figure: `discovery speedup, 2 workers over 1, servers ${far.rttMs} ms away (floor: bare SDK at 32 over 16)`,
        mode: d.speedupMode ?? '',
        value: fmtRatio(far.platform),
        floor: fmtRatio(far.floor),
      });
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
      target(`read path: ${label} req/s >= 0.6 x /health/live`, null, '>=', 0.6, 'x', null, rp?.notAvailable ?? 'not run');
      target(`read path: ${label} p99 <= 25 ms`, null, '<=', 25, ' ms', null, rp?.notAvailable ?? 'not run');
    }
  } else {
    const size = `${rp.servers} servers / ${rp.tools} tools, ${rp.connections} connections`;
    const cpu = (x) => (x?.cpuUsPerRequest ? `, ${x.cpuUsPerRequest} µs api CPU each` : '');
    row({ figure: `read path floor: GET /health/live (${size})`, mode: rp.mode, value: `${fmtRps(rp.floor.rps)}${cpu(rp.floor)}, p50 ${rp.floor.p50} ms, p99 ${rp.floor.p99} ms` });
    for (const [key, label] of endpoints) {
      const e = rp.endpoints[key];
      if (!e || e.notAvailable) {
        row({ figure: `read path: ${label}`, mode: rp.mode, value: NA(e?.notAvailable ?? 'not run') });
        target(`read path: ${label} req/s >= 0.6 x /health/live`, null, '>=', 0.6, 'x', rp.mode, e?.notAvailable ?? 'not run');
        target(`read path: ${label} p99 <= 25 ms`, null, '<=', 25, ' ms', rp.mode, e?.notAvailable ?? 'not run');
        continue;
      }
      const errors = e.okShare < 1 ? ` (${((1 - e.okShare) * 100).toFixed(1)}% not 2xx)` : '';
      const m1 = target(`read path: ${label} req/s >= 0.6 x /health/live`, e.ratio, '>=', 0.6, 'x', rp.mode);
      row({ figure: `read path: ${label} throughput`, mode: rp.mode, value: fmtRps(e.rps) + cpu(e) + errors, floor: fmtRps(rp.floor.rps) + cpu(rp.floor), ratio: fmtRatio(e.ratio), target: '>= 0.6x floor', met: m1 });
      const m2 = target(`read path: ${label} p99 <= 25 ms`, e.p99, '<=', 25, ' ms', rp.mode);
      row({ figure: `read path: ${label} latency p50 / p99`, mode: rp.mode, value: `${e.p50} / ${e.p99} ms`, floor: `${rp.floor.p50} / ${rp.floor.p99} ms`, target: 'p99 <= 25 ms', met: m2 });
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
  for (const h of s.http ?? []) {
    if (h.notAvailable) {
      row({ figure: `search over HTTP at ${h.tools} tools`, mode: s.mode, value: NA(h.notAvailable) });
      continue;
    }
    row({
      figure: `search over HTTP at ${h.tools} tools, p50 / p99 per query`,
      mode: s.mode,
      value: `${h.p50.toFixed(2)} / ${h.p99.toFixed(2)} ms`,
      floor: `${h.floor.p50.toFixed(2)} / ${h.floor.p99.toFixed(2)} ms`,
      target: h.tools >= 100_000 ? 'p99 <= 20 ms' : '',
      met: h.tools >= 100_000 ? metOf(h.p99, '<=', 20) : undefined,
    });
  }
  if (lib && !lib.notAvailable) {
    for (const z of lib.sizes) {
      row({ figure: `search in process (search lib) at ${z.tools} tools, p50 / p99`, mode: 'in process', value: `${z.p50Ms.toFixed(2)} / ${z.p99Ms.toFixed(2)} ms`, target: z.tools >= 100_000 ? 'p99 <= 5 ms' : '', met: z.tools >= 100_000 ? metOf(z.p99Ms, '<=', 5) : undefined });
    }
  } else {
    row({ figure: 'search in process (search lib)', value: NA(lib?.notAvailable ?? 'not run') });
  }
  const http100k = (s.http ?? []).find((h) => h.tools >= 100_000 && !h.notAvailable);
  const lib100k = lib && !lib.notAvailable ? lib.sizes.find((z) => z.tools >= 100_000) : null;
  if (http100k) target('search: p99 <= 20 ms at 100,000 tools (HTTP endpoint)', http100k.p99, '<=', 20, ' ms', s.mode);
  else target('search: p99 <= 20 ms at 100,000 tools (HTTP endpoint)', null, '<=', 20, ' ms', null, 'no HTTP search figure');
  if (lib100k) target('search: p99 <= 5 ms at 100,000 tools (search lib in process)', lib100k.p99Ms, '<=', 5, ' ms', 'in process');
  else target('search: p99 <= 5 ms at 100,000 tools (search lib in process)', null, '<=', 5, ' ms', null, lib?.notAvailable ?? 'not run');
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
        figure: `search recall@1 / recall@5 / MRR in process, bench/eval ${label}: ${x.queries} queries, ${e.servers} servers, ${e.tools} tools`,
        mode: 'in process',
        value: three(x),
        floor: e.bm25 ? `plain BM25 ${three(e.bm25[key])}` : '',
        target: isHoldout ? 'recall@1 >= 0.8, recall@5 >= 0.95' : '',
        met: isHoldout ? x.queries > 0 && x.recallAt1 >= 0.8 && x.recallAt5 >= 0.95 : undefined,
      });
    }
    const h = e.holdout;
    target('search: recall@1 >= 0.8 on the bench/eval holdout (search lib in process)', h ? h.recallAt1 : null, '>=', 0.8, '', 'in process');
    target('search: recall@5 >= 0.95 on the bench/eval holdout (search lib in process)', h ? h.recallAt5 : null, '>=', 0.95, '', 'in process');
  } else {
    target('search: recall@1 >= 0.8 on the bench/eval holdout', null, '>=', 0.8, '', null, lib?.notAvailable ?? 'not run');
    target('search: recall@5 >= 0.95 on the bench/eval holdout', null, '>=', 0.95, '', null, lib?.notAvailable ?? 'not run');
  }

  // 4. call overhead
  const c = figures.callOverhead;
  if (!c || c.notAvailable) {
    row({ figure: 'tool call overhead', value: NA(c?.notAvailable ?? 'not run') });
    target('call overhead: <= 3 ms added at p50 (/mcp call_tool)', null, '<=', 3, ' ms', null, c?.notAvailable ?? 'not run');
  } else {
    for (const [key, label, added] of [
      ['mcp', 'call_tool through /mcp', c.addedMcp],
      ['rpc', 'POST /api/v1/llm/mcp-call-tool', c.addedRpc],
    ]) {
      const st = c[key];
      if (!st || st.notAvailable) {
        row({ figure: `tool call: ${label}`, mode: c.mode, value: NA(st?.notAvailable ?? 'not run') });
        if (key === 'mcp') target('call overhead: <= 3 ms added at p50 (/mcp call_tool)', null, '<=', 3, ' ms', c.mode, st?.notAvailable);
        continue;
      }
      const met = target(`call overhead: <= 3 ms added at p50 (${key === 'mcp' ? '/mcp call_tool' : 'mcp-call-tool RPC'})`, added.p50, '<=', 3, ' ms', c.mode);
      row({ figure: `tool call: ${label}, added ms p50 / p99`, mode: c.mode, value: `${signed(added.p50)} / ${signed(added.p99)} ms`, floor: `${c.direct.p50.toFixed(2)} / ${c.direct.p99.toFixed(2)} ms direct`, target: 'p50 <= +3 ms', met });
    }
  }

  // 5. memory
  const m = figures.memory;
  if (!m || m.notAvailable) {
    row({ figure: 'memory', value: NA(m?.notAvailable ?? 'not run') });
    target('memory: api RSS <= 300 MiB', null, '<=', 300, ' MiB', null, m?.notAvailable ?? 'not run');
    target('memory: worker RSS <= 300 MiB', null, '<=', 300, ' MiB', null, m?.notAvailable ?? 'not run');
  } else {
    const size = `${m.servers} servers / ${m.tools} tools`;
    const m1 = target('memory: api RSS <= 300 MiB', m.api?.rssMiB, '<=', 300, ' MiB', m.mode);
    row({ figure: `memory: api RSS (${size}), peak`, mode: m.mode, value: `${fmtMiB(m.api?.rssMiB)}, peak ${fmtMiB(m.api?.peakMiB)}`, target: '<= 300 MiB', met: m1 });
    const worst = (m.workers ?? []).reduce((a, w) => (a === null || (w?.rssMiB ?? 0) > a.rssMiB ? w : a), null);
    const m2 = target('memory: worker RSS <= 300 MiB', worst?.rssMiB, '<=', 300, ' MiB', m.mode);
    row({ figure: `memory: worker RSS (${size}), peak`, mode: m.mode, value: `${fmtMiB(worst?.rssMiB)}, peak ${fmtMiB(worst?.peakMiB)}`, target: '<= 300 MiB', met: m2 });
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
