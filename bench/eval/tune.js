#!/usr/bin/env node
// Coordinate search of the ranking's parameters on the training part of bench/eval only (the holdout is
// never loaded): each parameter in turn is moved over a few values and the best MRR kept, for `rounds`.
//   node bench/eval/tune.js [rounds] [--set='{"serverDecay":0.8}']   prints the best parameters found as JSON
'use strict';
const { trainingSet } = require('./training-set');

const { search, servers, train } = trainingSet();
const docs = search.docsFromEvalServers(servers);
const rounds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1);
const set = process.argv.find((a) => a.startsWith('--set='));

function score(ranking) {
  const index = new search.ToolSearchIndex({ ranking });
  for (const [id, d] of docs) index.upsertServerTools(id, d);
  const r = search.evaluate(index, train);
  // MRR, with recall@5 to break ties
  return { value: r.mrr + r.recallAt5 / 100, r };
}

const fieldNames = Object.keys(search.Field).filter((k) => Number.isNaN(Number(k)));
let best = JSON.parse(JSON.stringify(search.DEFAULT_RANKING));
if (set) Object.assign(best, JSON.parse(set.slice(6)));
let bestScore = score(best);
const line = (r) => `recall@1 ${r.recallAt1.toFixed(3)} recall@5 ${r.recallAt5.toFixed(3)} MRR ${r.mrr.toFixed(3)}`;
process.stderr.write(`start: ${line(bestScore.r)}\n`);
const scalars = { k1: [0.8, 1.2, 1.6], prefixWeight: [0.3, 0.5, 0.7], coverage: [0.25, 0.5, 1, 1.5], nameCoverage: [0.25, 0.5, 1], fullNameBoost: [1, 1.3, 1.6], exactNameBoost: [2, 3], typoWeight: [0.5, 0.7, 0.9], serverDecay: [0.6, 0.75, 0.85, 1], serverFree: [0, 1, 2, 3], actionAgree: [1, 1.1, 1.2, 1.35, 1.5], actionConflict: [0.6, 0.75, 0.85, 1] };
for (let round = 0; round < rounds; round++) {
  for (const [key, values] of Object.entries(scalars)) {
    for (const v of values) {
      const candidate = { ...best, [key]: v };
      const s = score(candidate);
      if (s.value > bestScore.value + 1e-9) {
        best = candidate;
        bestScore = s;
        process.stderr.write(`${key}=${v}: ${line(s.r)}\n`);
      }
    }
  }
  for (let f = 0; f < best.fields.length; f++) {
    for (const factor of [0.5, 0.75, 1.33, 2]) {
      const fields = best.fields.map((x, i) => (i === f ? { ...x, weight: Math.round(x.weight * factor * 100) / 100 } : x));
      const candidate = { ...best, fields };
      const s = score(candidate);
      if (s.value > bestScore.value + 1e-9) {
        best = candidate;
        bestScore = s;
        process.stderr.write(`${fieldNames[f]}.weight=${fields[f].weight}: ${line(s.r)}\n`);
      }
    }
  }
}
process.stderr.write(`best: ${line(bestScore.r)}\n`);
process.stdout.write(JSON.stringify(best) + '\n');
