'use strict';
// Section 2, read path: autocannon with 50 connections on POST /api/v1/llm/mcp-get-server-info and
// GET /api/v1/servers, with the seeded registry, against the floor of the same api process answering
// /health/live (each measured twice in turn in a full run; the better run of each is kept). Before them, one pass
// of first answers, read from PostgreSQL because none is kept yet.
const path = require('node:path');
const { log, round } = require('../lib/util');
const { runNodeJson } = require('../lib/processes');
const { ROOT } = require('../lib/platform');

const CONNECTIONS = 50;

async function cannon(ctx, label, spec) {
  const r = await runNodeJson(
    `autocannon-${label}`,
    [path.join(__dirname, '..', 'load', 'autocannon-run.js'), JSON.stringify({ connections: CONNECTIONS, duration: ctx.quick ? 4 : 15, warmup: ctx.quick ? 1 : 3, cpuPid: ctx.apiPid, ...spec })],
    { env: process.env, cwd: ROOT, logDir: ctx.logDir },
  );
  const ok = r.requests - r.non2xx - r.errors - r.timeouts;
  return { ...r, rps: round(r.rps, 1), okShare: r.requests ? round(ok / r.requests, 4) : 0 };
}

/** The api's answer-cache lookups so far, by result (hit, miss, bypass), from its /metrics. */
async function cacheLookups(origin) {
  const text = await fetch(`${origin}/metrics`).then((r) => r.text()).catch(() => '');
  const out = {};
  for (const m of text.matchAll(/^mcpr_answer_cache_lookups_total\{result="(\w+)"\} (\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/** What a load run did to the answer cache: lookups by result during it, and the share answered from the cache. */
function cacheDelta(before, after) {
  const d = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) d[k] = (after[k] ?? 0) - (before[k] ?? 0);
  const total = Object.values(d).reduce((a, b) => a + b, 0);
  return { ...d, hitShare: total ? round((d.hit ?? 0) / total, 4) : null };
}

/** Whether an endpoint exists and answers 200 here (a route that is not there yet answers 404 or 405). */
async function probe(http, method, p, body, key) {
  const res = await http.request(method, p, body, key);
  return res.status === 200 ? { ok: true } : { ok: false, why: `${method} ${p} answered ${res.status}${res.status === 404 ? ' (not built yet?)' : ''}: ${res.text.slice(0, 160)}` };
}

async function run(ctx, seeded) {
  const platform = seeded.platform;
  // The api's own CPU per request is read beside the requests per second: it moves less with the machine's load.
  ctx = { ...ctx, apiPid: platform.pids().api };
  const origin = platform.origin;
  const auth = { authorization: `Bearer ${seeded.tenantKey}` };
  const ids = seeded.visibleServerIds(1000);
  const out = { servers: seeded.servers, tools: seeded.tools, connections: CONNECTIONS, durationS: ctx.quick ? 4 : 15, key: 'tenant key (sees the platform servers and its own)', endpoints: {} };

  const infoProbe = await probe(platform.http, 'POST', '/api/v1/llm/mcp-get-server-info', { serverId: ids[0] }, seeded.tenantKey);
  const listProbe = await probe(platform.http, 'GET', '/api/v1/servers', undefined, seeded.tenantKey);
  if (!infoProbe.ok) out.endpoints.getServerInfo = { notAvailable: infoProbe.why };
  if (!listProbe.ok) out.endpoints.listServers = { notAvailable: listProbe.why };

  const info = {
    url: `${origin}/api/v1/llm/mcp-get-server-info`,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    bodies: ids.map((serverId) => JSON.stringify({ serverId })),
  };
  /** A load run, with what it did to the answer cache. */
  const cannonCached = async (label, spec) => {
    const before = await cacheLookups(origin);
    const r = await cannon(ctx, label, spec);
    return { ...r, answerCache: cacheDelta(before, await cacheLookups(origin)) };
  };

  // Before anything asks for them, no answer is kept: each server's first answer is read from PostgreSQL. One pass
  // over the list (each connection starts at its own place in it, so a few servers may be asked for twice).
  if (infoProbe.ok) {
    log('read path: POST /api/v1/llm/mcp-get-server-info, first answers (none kept yet)');
    out.firstAnswers = await cannonCached('get-server-info-first', { ...info, warmup: 0, amount: ids.length });
  }

  // The floor and each endpoint are measured in turn, twice in a full run: the machine is shared and its speed
  // moves within a run, so each keeps its better run and none is compared at its worst with another at its best.
  const rounds = ctx.quick ? 1 : 2;
  const runs = { floor: [], getServerInfo: [], listServers: [] };
  for (let attempt = 1; attempt <= rounds; attempt++) {
    log(`read path: floor GET /health/live (run ${attempt})`);
    runs.floor.push(await cannon(ctx, `floor-${attempt}`, { url: `${origin}/health/live` }));
    if (infoProbe.ok) {
      log(`read path: POST /api/v1/llm/mcp-get-server-info (run ${attempt})`);
      runs.getServerInfo.push(await cannonCached(`get-server-info-${attempt}`, info));
    }
    if (listProbe.ok) {
      log(`read path: GET /api/v1/servers (run ${attempt})`);
      runs.listServers.push(await cannonCached(`list-servers-${attempt}`, { url: `${origin}/api/v1/servers`, headers: auth }));
    }
  }
  const best = (list) => list.reduce((x, y) => (y.rps > x.rps ? y : x));
  out.floor = { ...best(runs.floor), runsRps: runs.floor.map((r) => r.rps) };
  for (const key of ['getServerInfo', 'listServers']) {
    if (runs[key].length === 0) continue;
    const e = best(runs[key]);
    out.endpoints[key] = { ...e, runsRps: runs[key].map((r) => r.rps), ratio: round(e.rps / out.floor.rps, 3) };
  }
  return out;
}

module.exports = { run, probe };
