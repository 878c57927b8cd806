import type { ToolSearchIndex } from './tool-search-index';
import type { ToolDocument, Visibility } from './tool-document';

/** A tool as an MCP server lists it (tools/list). */
export interface EvalTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly annotations?: { readonly title?: string } & Readonly<Record<string, unknown>>;
}

/** One server of the evaluation set (bench/eval/servers.json). */
export interface EvalServer {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  /** Where its tool list came from. */
  readonly source?: string;
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
  /** "holdout": written after the ranking was settled and never used to change it. */
  readonly split?: string;
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
    out.set(
      s.id,
      s.tools.map((t) => ({
        serverId: s.id,
        serverName: s.name,
        serverKind: s.kind,
        tenantId,
        toolName: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: t.annotations,
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
  index: ToolSearchIndex,
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
