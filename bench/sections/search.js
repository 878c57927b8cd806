'use strict';
// Section 3, tool search: latency per query through POST /api/v1/llm/mcp-search-tools at the seeded sizes
// (sequential requests, the bench as the only client), beside the search lib's in-process figure at the same
// sizes and its recall@1 / recall@5 on the evaluation set (bench/eval).
const path = require('node:path');
const { log, ms, summarize } = require('../lib/util');
const { runNodeJson } = require('../lib/processes');
const { ROOT } = require('../lib/platform');
const { probe } = require('./read-path');
const { evalServerIdOf } = require('../lib/ids');
const { requireSearch } = require('../lib/ts-require');

/** Every query of bench/eval (training part and holdout), with its split. */
function evalSet() {
  return requireSearch().loadEvalSet(path.join(ROOT, 'bench', 'eval')).queries;
}

function evalQueries() {
  return evalSet().map((q) => q.query);
}

/**
 * Recall through the endpoint: the platform holds only the evaluation set's servers; every query is asked
 * with the admin key (which sees every server, as the library's evaluation does) and scored as the search
 * lib's evaluate() scores (scoreOutcomes): the rank of the first expected tool among the first ten results.
 */
async function httpRecall(ctx, seeded) {
  const http = seeded.platform.http;
  const queries = evalSet();
  const p = await probe(http, 'POST', '/api/v1/llm/mcp-search-tools', { query: queries[0].query, limit: 10 });
  if (!p.ok) return { notAvailable: p.why };
  log(`search: recall of ${queries.length} evaluation queries over HTTP`);
  const score = requireSearch().scoreOutcomes;
  const ranked = [];
  for (const q of queries) {
    const body = await http.expect('POST', '/api/v1/llm/mcp-search-tools', { query: q.query, limit: 10 }, [200]);
    const wanted = new Set(q.expected.map((e) => `${evalServerIdOf(e.serverId)}\u0000${e.toolName}`));
    const i = body.results.findIndex((r) => wanted.has(`${r.serverId}\u0000${r.tool.name}`));
    ranked.push({ id: q.id, split: q.split, rank: i < 0 ? null : i + 1 });
  }
  return {
    ...score(ranked),
    train: score(ranked.filter((q) => q.split !== 'holdout')),
    holdout: score(ranked.filter((q) => q.split === 'holdout')),
    misses: ranked.filter((q) => q.rank === null || q.rank > 5).map((q) => q.id),
  };
}

/** Sequential round trips: one warm-up round, then `rounds` rounds over every query. */
async function timeRequests(http, key, make, count, rounds) {
  for (let i = 0; i < count; i++) await http.expect(...make(i), [200], key);
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < count; i++) {
      const t = process.hrtime.bigint();
      await http.expect(...make(i), [200], key);
      samples.push(ms(t));
    }
  }
  return summarize(samples);
}

/** HTTP search latency on the running seeded platform, with the round trip of /health/live as its floor. */
async function httpLatency(ctx, seeded) {
  const http = seeded.platform.http;
  const queries = evalQueries();
  const p = await probe(http, 'POST', '/api/v1/llm/mcp-search-tools', { query: queries[0], limit: 10 }, seeded.tenantKey);
  if (!p.ok) return { tools: seeded.tools, notAvailable: p.why };
  const rounds = ctx.quick ? 1 : 5;
  log(`search: ${queries.length} queries x ${rounds} over HTTP at ${seeded.tools} tools`);
  const search = await timeRequests(http, seeded.tenantKey, (i) => ['POST', '/api/v1/llm/mcp-search-tools', { query: queries[i], limit: 10 }], queries.length, rounds);
  const floor = await timeRequests(http, seeded.tenantKey, () => ['GET', '/health/live', undefined], queries.length, rounds);
  return { tools: seeded.tools, servers: seeded.servers, limit: 10, ...search, floor };
}

/** The search lib in a process of its own: latency at the sizes, and the evaluation set's recall. */
async function library(ctx, sizes) {
  log(`search: the search lib in process at ${sizes.join(', ')} tools, and recall on bench/eval`);
  try {
    return await runNodeJson('search-library', [path.join(__dirname, '..', 'search', 'library-search.js'), JSON.stringify({ sizes, iterations: ctx.quick ? 2 : 10 })], {
      env: process.env,
      cwd: ROOT,
      logDir: ctx.logDir,
    });
  } catch (err) {
    return { notAvailable: `the search lib could not be run: ${err.message.split('\n')[0]}` };
  }
}

module.exports = { httpLatency, httpRecall, library };
