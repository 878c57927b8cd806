import type { SearchOptions, ToolDocument, Visibility } from './tool-document';

/** Anything that ranks tools for a query: the index, or the plain BM25 it is compared with. */
export interface ToolRanker {
  search(query: string, options: SearchOptions): readonly { readonly doc: ToolDocument; readonly score: number }[];
}

/** A tool as an MCP server lists it (tools/list). */
export interface EvalTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly annotations?: { readonly title?: string } & Readonly<Record<string, unknown>>;
}

/** One server of the evaluation set (bench/eval/servers.json, bench/eval/servers/*.json). */
export interface EvalServer {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  /** Where its tool list came from. */
  readonly source?: string;
  /** What the server said of itself in initialize. */
  readonly serverInfo?: { readonly name?: string; readonly title?: string; readonly version?: string };
  readonly instructions?: string;
  readonly tools: readonly EvalTool[];
}

export interface ToolRef {
  readonly serverId: string;
  readonly toolName: string;
}

/** A request a person would make, and the tools that would serve it (any one of them is a right answer). */
export interface EvalQuery {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly ToolRef[];
  /** "train" (tuned on) or "holdout" (never used to change the ranking); set from the file it is in. */
  readonly split?: 'train' | 'holdout';
  /** A request the lexical ranking finds hard: shares few words with the tool, names a product, has a typo. */
  readonly hard?: boolean;
}

export interface QueryOutcome {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly ToolRef[];
  /** 1-based rank of the first expected tool in the results, or null when none came back. */
  readonly rank: number | null;
  readonly top: readonly (ToolRef & { readonly score: number })[];
}

export interface EvaluationResult {
  readonly queries: number;
  /** Share of queries whose first result is an expected tool. */
  readonly recallAt1: number;
  /** Share of queries with an expected tool among the first five results. */
  readonly recallAt5: number;
  /** Mean reciprocal rank of the first expected tool (0 for a miss within `depth`). */
  readonly mrr: number;
  readonly perQuery: readonly QueryOutcome[];
}

/** The evaluation servers as documents; every server is the platform's unless `tenantOf` says otherwise. */
export function docsFromEvalServers(
  servers: readonly EvalServer[],
  tenantOf: (server: EvalServer) => string | null = () => null,
): Map<string, ToolDocument[]> {
  const out = new Map<string, ToolDocument[]>();
  for (const s of servers) {
    const tenantId = tenantOf(s);
    // as the catalog does: the name it was registered under, and what the server calls itself
    const selfName = s.serverInfo?.title ?? s.serverInfo?.name;
    const serverName = selfName && selfName !== s.name ? `${s.name} ${selfName}` : s.name;
    out.set(
      s.id,
      s.tools.map((t) => ({
        serverId: s.id,
        serverName,
        serverKind: s.kind,
        tenantId,
        toolName: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: t.annotations,
        ...(s.instructions ? { serverInstructions: s.instructions } : {}),
      })),
    );
  }
  return out;
}

/**
 * Runs every query against the index and scores the rankings. `depth` is how many results are read per
 * query (at least 5).
 */
export function evaluate(
  index: ToolRanker,
  queries: readonly EvalQuery[],
  options: { readonly visible?: Visibility; readonly depth?: number } = {},
): EvaluationResult {
  const depth = Math.max(5, options.depth ?? 10);
  const visible = options.visible ?? (() => true);
  const perQuery: QueryOutcome[] = [];
  let at1 = 0;
  let at5 = 0;
  let rr = 0;
  for (const q of queries) {
    const hits = index.search(q.query, { limit: depth, visible });
    const wanted = new Set(q.expected.map(key));
    const idx = hits.findIndex((h) => wanted.has(key(h.doc)));
    const rank = idx < 0 ? null : idx + 1;
    if (rank === 1) at1++;
    if (rank !== null && rank <= 5) at5++;
    if (rank !== null) rr += 1 / rank;
    perQuery.push({
      id: q.id,
      query: q.query,
      expected: q.expected,
      rank,
      top: hits.slice(0, 5).map((h) => ({ serverId: h.doc.serverId, toolName: h.doc.toolName, score: h.score })),
    });
  }
  const n = queries.length || 1;
  return { queries: queries.length, recallAt1: at1 / n, recallAt5: at5 / n, mrr: rr / n, perQuery };
}

function key(ref: ToolRef): string {
  return `${ref.serverId}\u0000${ref.toolName}`;
}

export interface SplitScores {
  readonly queries: number;
  readonly recallAt1: number;
  readonly recallAt5: number;
  readonly mrr: number;
}

/** Recall@1, recall@5 and MRR of some outcomes of one evaluation. */
export function scoreOutcomes(outcomes: readonly QueryOutcome[]): SplitScores {
  const n = outcomes.length || 1;
  return {
    queries: outcomes.length,
    recallAt1: outcomes.filter((q) => q.rank === 1).length / n,
    recallAt5: outcomes.filter((q) => q.rank !== null && q.rank <= 5).length / n,
    mrr: outcomes.reduce((a, q) => a + (q.rank ? 1 / q.rank : 0), 0) / n,
  };
}

export interface SplitReport {
  readonly train: SplitScores;
  readonly holdout: SplitScores;
  /** The hard queries of the holdout. */
  readonly hardHoldout: SplitScores;
  /** The hard queries of the training part. */
  readonly hardTrain: SplitScores;
  readonly all: SplitScores;
}

/** One evaluation scored by split: training part, holdout, and the hard queries of each. */
export function evaluateSplits(ranker: ToolRanker, queries: readonly EvalQuery[]): { report: SplitReport; result: EvaluationResult } {
  const result = evaluate(ranker, queries);
  const byId = new Map(queries.map((q) => [q.id, q]));
  const pick = (f: (q: EvalQuery) => boolean): SplitScores => scoreOutcomes(result.perQuery.filter((o) => f(byId.get(o.id) as EvalQuery)));
  return {
    result,
    report: {
      train: pick((q) => q.split !== 'holdout'),
      holdout: pick((q) => q.split === 'holdout'),
      hardHoldout: pick((q) => q.split === 'holdout' && q.hard === true),
      hardTrain: pick((q) => q.split !== 'holdout' && q.hard === true),
      all: pick(() => true),
    },
  };
}
