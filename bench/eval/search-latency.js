#!/usr/bin/env node
// Tool-search latency and memory at registry sizes: `node --expose-gc bench/eval/search-latency.js [N...]`
// (default 10000 100000). Builds a synthetic registry of N tools from the evaluation servers, runs the
// evaluation queries against it as one tenant, and prints p50/p99 per query, build time and heap use as JSON.
'use strict';
const path = require('node:path');
const { install } = require('../lib/ts-require');

// the search lib is TypeScript; compiled on load the way jest does
install();

const search = require(path.join(__dirname, '../../libs/search/src/index.ts'));
const gc = typeof global.gc === 'function' ? global.gc : () => {};
const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const { queries } = search.loadEvalSet(__dirname);
const results = [];
for (const n of sizes.length ? sizes : [10000, 100000]) {
  gc();
  const before = process.memoryUsage();
  const corpus = search.buildSyntheticCorpus(n, 42);
  gc();
  const withDocs = process.memoryUsage();
  const started = Date.now();
  const index = new search.ToolSearchIndex();
  for (const [serverId, docs] of corpus) index.upsertServerTools(serverId, docs);
  const buildMs = Date.now() - started;
  gc();
  const built = process.memoryUsage();
  const latency = search.measureQueryLatency(index, queries.map((q) => q.query), 10);
  const ids = [...corpus.keys()];
  const replaceStart = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) {
    const id = ids[(i * 7919) % ids.length];
    index.upsertServerTools(id, corpus.get(id));
  }
  const replaceMs = Number(process.hrtime.bigint() - replaceStart) / 1e6 / 200;
  results.push({
    tools: n,
    ...index.stats(),
    buildMs,
    replaceServerMs: Math.round(replaceMs * 1000) / 1000,
    ...latency,
    docsMiB: mib(withDocs.heapUsed + withDocs.arrayBuffers - before.heapUsed - before.arrayBuffers),
    indexMiB: mib(built.heapUsed + built.arrayBuffers - withDocs.heapUsed - withDocs.arrayBuffers),
    heapUsedMiB: mib(built.heapUsed),
    arrayBuffersMiB: mib(built.arrayBuffers),
    rssMiB: mib(built.rss),
  });
}
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
