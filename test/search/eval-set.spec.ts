import { buildEvalIndex, evaluate, loadEvalSet } from '@app/search';

/**
 * The tool search against real MCP servers' tool lists and requests people would make of an agent
 * (bench/eval). Recall@5 is the bar: the agent reads the first few results, so the right tool must be
 * among them.
 */
describe('tool search on the evaluation set', () => {
  const { servers, queries } = loadEvalSet();
  const index = buildEvalIndex(servers);

  it('is a real-sized set whose expected tools all exist', () => {
    const tools = new Set(servers.flatMap((s) => s.tools.map((t) => `${s.id}:${t.name}`)));
    expect(servers.length).toBeGreaterThanOrEqual(15);
    expect(tools.size).toBeGreaterThanOrEqual(250);
    expect(queries.length).toBeGreaterThanOrEqual(100);
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    const unknown = queries.flatMap((q) => q.expected.map((e) => `${e.serverId}:${e.toolName}`)).filter((k) => !tools.has(k));
    expect(unknown).toEqual([]);
  });

  it('finds an expected tool in the first five results for at least 90% of the queries', () => {
    const result = evaluate(index, queries);
    const holdout = evaluate(
      index,
      queries.filter((q) => q.split === 'holdout'),
    );
    const line = (name: string, r: typeof result): string =>
      `  ${name}: ${r.queries} queries, recall@1 ${r.recallAt1.toFixed(3)}, recall@5 ${r.recallAt5.toFixed(3)}, MRR ${r.mrr.toFixed(3)}\n`;
    const misses = result.perQuery
      .filter((q) => q.rank === null || q.rank > 5)
      .map((q) => `  ${q.rank ?? '-'}\t${q.query} → ${q.top.slice(0, 3).map((t) => `${t.serverId}:${t.toolName}`).join(', ')}`);
    process.stdout.write(
      `tool search over ${servers.length} servers / ${index.size} tools:\n` +
        line('all', result) +
        line('holdout (not used for tuning)', holdout) +
        `not in the first five:\n${misses.join('\n')}\n`,
    );
    expect(result.recallAt5).toBeGreaterThanOrEqual(0.9);
  });

  it('answers the same ranking every time', () => {
    const first = evaluate(index, queries).perQuery.map((q) => q.top);
    const rebuilt = buildEvalIndex([...servers].reverse());
    expect(evaluate(rebuilt, queries).perQuery.map((q) => q.top)).toEqual(first);
  });
});
