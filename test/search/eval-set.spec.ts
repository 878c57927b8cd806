import { Bm25Baseline, buildEvalIndex, docsFromEvalServers, evaluate, evaluateSplits, loadEvalSet, SplitScores } from '@app/search';

/**
 * The tool search against real MCP servers' tool lists and requests people would make of an agent
 * (bench/eval). The holdout (queries-holdout.json) was written before the ranking was tuned on the grown
 * set and is never used to change it; the bars below are on it, the training part only keeps the ranking
 * from sliding back.
 */
describe('tool search on the evaluation set', () => {
  const { servers, queries } = loadEvalSet();
  const index = buildEvalIndex(servers);

  it('is a real-sized set whose expected tools all exist', () => {
    const tools = new Set(servers.flatMap((s) => s.tools.map((t) => `${s.id}:${t.name}`)));
    expect(new Set(servers.map((s) => s.id)).size).toBe(servers.length);
    expect(servers.length).toBeGreaterThanOrEqual(45);
    expect(tools.size).toBeGreaterThanOrEqual(1000);
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    expect(queries.filter((q) => q.split === 'holdout').length).toBeGreaterThanOrEqual(100);
    expect(queries.filter((q) => q.hard).length).toBeGreaterThanOrEqual(40);
    const unknown = queries.flatMap((q) => q.expected.map((e) => `${e.serverId}:${e.toolName}`)).filter((k) => !tools.has(k));
    expect(unknown).toEqual([]);
  });

  it('ranks better than plain BM25 and keeps its level on the training part', () => {
    const { report, result } = evaluateSplits(index, queries);
    const bm25 = evaluateSplits(new Bm25Baseline([...docsFromEvalServers(servers).values()].flat()), queries).report;
    const line = (name: string, r: SplitScores, b: SplitScores): string =>
      `  ${name}: ${r.queries} queries, recall@1 ${r.recallAt1.toFixed(3)}, recall@5 ${r.recallAt5.toFixed(3)}, MRR ${r.mrr.toFixed(3)}` +
      ` (plain BM25 ${b.recallAt1.toFixed(3)} / ${b.recallAt5.toFixed(3)} / ${b.mrr.toFixed(3)})\n`;
    const misses = result.perQuery.filter((q) => q.rank === null || q.rank > 5).length;
    process.stdout.write(
      `tool search over ${servers.length} servers / ${index.size} tools:\n` +
        line('train', report.train, bm25.train) +
        line('holdout (never tuned on)', report.holdout, bm25.holdout) +
        line('hard, holdout', report.hardHoldout, bm25.hardHoldout) +
        line('hard, train', report.hardTrain, bm25.hardTrain) +
        `${misses} queries without an expected tool in the first five\n`,
    );
    expect(report.train.mrr).toBeGreaterThan(bm25.train.mrr);
    expect(report.holdout.mrr).toBeGreaterThan(bm25.holdout.mrr);
    // where the ranking stands on the training part (0.781 / 0.957): a change that loses ground fails here
    expect(report.train.recallAt1).toBeGreaterThanOrEqual(0.77);
    expect(report.train.recallAt5).toBeGreaterThanOrEqual(0.95);
  });

  it('answers the same ranking every time', () => {
    const first = evaluate(index, queries).perQuery.map((q) => q.top);
    const rebuilt = buildEvalIndex([...servers].reverse());
    expect(evaluate(rebuilt, queries).perQuery.map((q) => q.top)).toEqual(first);
  });
});
