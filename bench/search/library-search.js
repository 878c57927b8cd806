#!/usr/bin/env node
// Tool search inside one process, without HTTP: the search lib's own index at registry sizes (its synthetic
// corpus) and its ranking quality on the evaluation set (bench/eval), beside plain BM25 on the same set.
// Argument: JSON {sizes, iterations}.
// Prints JSON {sizes: [{tools, buildMs, p50Ms, p99Ms, ...}], evaluation: {servers, tools, train, holdout,
// hardHoldout, hardTrain, all, bm25: {…the same}, misses}}.
'use strict';
const { requireSearch } = require('../lib/ts-require');

const { sizes = [10000, 100000], iterations = 10 } = JSON.parse(process.argv[2] ?? '{}');

function main() {
  const search = requireSearch();
  const { servers, queries } = search.loadEvalSet();
  const texts = queries.map((q) => q.query);
  const out = [];
  for (const n of sizes) {
    const corpus = search.buildSyntheticCorpus(n, 42);
    const started = Date.now();
    const index = new search.ToolSearchIndex();
    for (const [serverId, docs] of corpus) index.upsertServerTools(serverId, docs);
    const buildMs = Date.now() - started;
    const latency = search.measureQueryLatency(index, texts, iterations);
    out.push({ tools: n, buildMs, ...latency });
  }
  const index = search.buildEvalIndex(servers);
  const { report, result } = search.evaluateSplits(index, queries);
  const bm25 = search.evaluateSplits(new search.Bm25Baseline([...search.docsFromEvalServers(servers).values()].flat()), queries).report;
  const split = new Map(queries.map((q) => [q.id, q.split]));
  process.stdout.write(
    JSON.stringify({
      sizes: out,
      queries: texts.length,
      evaluation: {
        servers: servers.length,
        tools: index.size,
        ...report,
        // the totals over every query, as reported before the set was split three ways
        queries: report.all.queries,
        recallAt1: report.all.recallAt1,
        recallAt5: report.all.recallAt5,
        mrr: report.all.mrr,
        bm25,
        misses: result.perQuery.filter((q) => q.rank === null || q.rank > 5).map((q) => ({ id: q.id, split: split.get(q.id), query: q.query, rank: q.rank })),
      },
    }) + '\n',
  );
}

main();
