#!/usr/bin/env node
// Tool search inside one process, without HTTP: the search lib's own index at registry sizes (its synthetic
// corpus) and its ranking quality on the evaluation set (bench/eval). Argument: JSON {sizes, iterations}.
// Prints JSON {sizes: [{tools, buildMs, p50Ms, p99Ms, ...}], evaluation: {queries, recallAt1, recallAt5, mrr, misses}}.
'use strict';
const { requireSearch } = require('../lib/ts-require');

const { sizes = [10000, 100000], iterations = 10 } = JSON.parse(process.argv[2] ?? '{}');

function main() {
  const search = requireSearch();
  const { servers, queries } = search.loadEvalSet();
  const texts = queries.map((q) => q.query);
  const out = [];
  for (const n of sizes) {
    const corpus = search.buildSyntheticCorpus(n, 42, servers);
    const started = Date.now();
    const index = new search.ToolSearchIndex();
    for (const [serverId, docs] of corpus) index.upsertServerTools(serverId, docs);
    const buildMs = Date.now() - started;
    const latency = search.measureQueryLatency(index, texts, iterations);
    out.push({ tools: n, buildMs, ...latency });
  }
  const index = search.buildEvalIndex(servers);
  const evaluation = search.evaluate(index, queries);
  const holdout = search.evaluate(index, queries.filter((q) => q.split === 'holdout'));
  process.stdout.write(
    JSON.stringify({
      sizes: out,
      queries: texts.length,
      evaluation: {
        queries: evaluation.queries,
        recallAt1: evaluation.recallAt1,
        recallAt5: evaluation.recallAt5,
        mrr: evaluation.mrr,
        holdout: { queries: holdout.queries, recallAt1: holdout.recallAt1, recallAt5: holdout.recallAt5, mrr: holdout.mrr },
        misses: evaluation.perQuery.filter((q) => q.rank === null || q.rank > 5).map((q) => ({ id: q.id, query: q.query, rank: q.rank })),
      },
    }) + '\n',
  );
}

main();
