export { ToolSearchIndex } from './tool-search-index';
export type { IndexStats, ToolSearchIndexOptions } from './tool-search-index';
export type { Confidence, SearchHit, SearchOptions, ToolDocument, Visibility } from './tool-document';
export { DEFAULT_RANKING } from './ranking';
export type { FieldParams, RankingParams } from './ranking';
export { Field, FIELD_COUNT, fieldTokens, schemaText, splitPurpose } from './fields';
export { STOP_WORDS, isIndexable, splitWords, termOf, tokenize } from './tokenizer';
export type { Token } from './tokenizer';
export { stem } from './stemmer';
export { EXPANSIONS, PHRASES, SYNONYM_GROUPS, alternativesOf, expandPhrases } from './synonyms';
export type { Alternative } from './synonyms';
export { boundedEditDistance, describeArguments } from './tool-search-index';
export { docsFromEvalServers, evaluate, evaluateSplits, scoreOutcomes } from './evaluation';
export type { EvalQuery, EvalServer, EvalTool, EvaluationResult, QueryOutcome, SplitReport, SplitScores, ToolRanker, ToolRef } from './evaluation';
export { Bm25Baseline } from './bm25-baseline';
export {
  buildEvalIndex,
  buildSyntheticCorpus,
  buildSyntheticIndex,
  findEvalDir,
  loadEvalSet,
  loadTemplateServers,
  measureQueryLatency,
} from './search.bench-support';
export type { LatencyQuery, LatencyReport } from './search.bench-support';
