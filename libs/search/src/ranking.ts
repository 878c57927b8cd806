import { FIELD_COUNT, Field } from './fields';

/** How much a match in each field counts, and how much that field's length dampens it (BM25F). */
export interface FieldParams {
  readonly weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  readonly b: number;
  /**
   * The length (in words) at which the field is neither favoured nor penalised: a fixed stand-in for BM25's
   * average length, so that scores do not drift with what else is indexed. Set from the evaluation set.
   */
  readonly referenceLength: number;
}

export interface RankingParams {
  readonly fields: readonly FieldParams[];
  /** Term-frequency saturation. */
  readonly k1: number;
  /** Weight of a word the last, unfinished query word may be the start of. */
  readonly prefixWeight: number;
  /** Most completions tried for one unfinished or unknown word. */
  readonly maxPrefixExpansions: number;
  /** Extra share of the score for a tool that matches every query word (0: plain sum). */
  readonly coverage: number;
  /** Extra share of the score in proportion to how much of the tool's name the query covers. */
  readonly nameCoverage: number;
  /** Factor for a tool whose whole name is made of query words ("create issue" → create_issue). */
  readonly fullNameBoost: number;
  /** Factor for a tool whose exact name was typed ("git_status"). */
  readonly exactNameBoost: number;
  /** Weight of a known word that a misspelt query word is one or two edits from. */
  readonly typoWeight: number;
  /**
   * Each further result from a server already in the list counts this share of its score when the list
   * is put together (1: no diversification).
   */
  readonly serverDecay: number;
  /** Results of one server that are not diversified away: the decay applies from the next one on. */
  readonly serverFree: number;
  /** Factor for a tool whose name does the kind of action the request opens with ("delete …" → delete_branch). */
  readonly actionAgree: number;
  /** Factor for a tool whose name does another kind of action ("delete …" → create_branch). */
  readonly actionConflict: number;
}

function fields(entries: Record<Field, FieldParams>): FieldParams[] {
  const out: FieldParams[] = new Array(FIELD_COUNT);
  for (let f = 0; f < FIELD_COUNT; f++) out[f] = entries[f as Field];
  return out;
}

/**
 * Tuned by `node bench/eval/tune.js` (coordinate search, one round, on the training part of bench/eval
 * only; the holdout is never loaded there) from the hand-set values before it.
 */
export const DEFAULT_RANKING: RankingParams = {
  fields: fields({
    [Field.NAME]: { weight: 3, b: 0.5, referenceLength: 2.5 },
    [Field.TITLE]: { weight: 4, b: 0.5, referenceLength: 2.5 },
    [Field.PURPOSE]: { weight: 1.5, b: 0.5, referenceLength: 6 },
    [Field.DESCRIPTION]: { weight: 0.45, b: 0.75, referenceLength: 25 },
    [Field.PARAMS]: { weight: 0.3, b: 0.75, referenceLength: 40 },
    // the server's name counts as much as the tool's title: "on bitbucket", "in outlook" decide between near misses
    [Field.SERVER]: { weight: 4, b: 0.3, referenceLength: 1.5 },
    [Field.SERVER_ABOUT]: { weight: 0.2, b: 0.5, referenceLength: 40 },
  }),
  k1: 1.6,
  prefixWeight: 0.3,
  maxPrefixExpansions: 12,
  coverage: 1.5,
  nameCoverage: 0.5,
  fullNameBoost: 1,
  exactNameBoost: 3,
  typoWeight: 0.7,
  serverDecay: 0.85,
  serverFree: 3,
  actionAgree: 1.2,
  actionConflict: 0.85,
};
