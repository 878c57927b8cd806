#!/usr/bin/env node
// The ranking on the training part of bench/eval only (what tuning may look at): recall@1, recall@5 and MRR
// beside plain BM25, and the training queries the ranking misses. The holdout is not run here.
//   node bench/eval/train-report.js [--misses] [--json]
'use strict';
const { trainingSet } = require('./training-set');

const { search, servers, train } = trainingSet();
const index = search.buildEvalIndex(servers);
const { report, result } = search.evaluateSplits(index, train);
const bm25 = search.evaluateSplits(new search.Bm25Baseline([...search.docsFromEvalServers(servers).values()].flat()), train).report;
const fmt = (x) => `${x.queries} queries: recall@1 ${x.recallAt1.toFixed(3)}, recall@5 ${x.recallAt5.toFixed(3)}, MRR ${x.mrr.toFixed(3)}`;
if (process.argv.includes('--json')) {
  process.stdout.write(JSON.stringify({ train: report.train, hardTrain: report.hardTrain, bm25: { train: bm25.train, hardTrain: bm25.hardTrain } }) + '\n');
} else {
  process.stdout.write(`${servers.length} servers, ${index.size} tools\n`);
  process.stdout.write(`train       ${fmt(report.train)}\n  plain BM25 ${fmt(bm25.train)}\n`);
  process.stdout.write(`hard train  ${fmt(report.hardTrain)}\n  plain BM25 ${fmt(bm25.hardTrain)}\n`);
  if (process.argv.includes('--misses')) {
    for (const q of result.perQuery.filter((o) => o.rank !== 1)) {
      process.stdout.write(`${q.rank ?? '-'}\t${q.id}\t${q.query}\n\t→ ${q.top.slice(0, 3).map((t) => `${t.serverId}:${t.toolName}`).join(', ')}\n\t  want ${q.expected.map((e) => `${e.serverId}:${e.toolName}`).join(', ')}\n`);
    }
  }
}
