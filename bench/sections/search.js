'use strict';
// Section 3, tool search: latency per query through POST /api/v1/llm/mcp-search-tools at the seeded sizes
// (sequential requests, the bench as the only client), beside the search lib's in-process figure at the same
// sizes and its recall@1 / recall@5 on the evaluation set (bench/eval).
const fs = require('node:fs');
const path = require('node:path');
const { log, ms, summarize } = require('../lib/util');
const { runNodeJson } = require('../lib/processes');
const { ROOT } = require('../lib/platform');
const { probe } = require('./read-path');

const EVAL_DIR = path.join(ROOT, 'bench', 'eval');

function evalQueries() {
  return JSON.parse(fs.readFileSync(path.join(EVAL_DIR, 'queries.json'), 'utf8')).queries.map((q) => q.query);
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

module.exports = { httpLatency, library };
