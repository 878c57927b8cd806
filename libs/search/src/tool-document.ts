import type { Viewer } from '@app/domain';
/**
 * What the search index knows of one tool of one server. The index keeps a reference to the object it was
 * given and hands it back in results; treat it as immutable once indexed.
 */
export interface ToolDocument {
  readonly serverId: string;
  readonly serverName: string;
  /** The server's kind, as the registry names it (`INTERNAL`, `BUILT_IN`, `CUSTOM`, `EXTERNAL`, `INTEGRATION`). */
  readonly serverKind: string;
  /** Owner of the server; null for the platform's servers, which every tenant sees. */
  readonly tenantId: string | null;
  readonly toolName: string;
  readonly title?: string;
  readonly description?: string;
  /** The tool's JSON Schema for its arguments (an object schema); property names, descriptions and enums are indexed. */
  readonly inputSchema?: unknown;
  readonly annotations?: { readonly title?: string } & Readonly<Record<string, unknown>>;
  /**
   * The instructions the server sent at initialize, if any: its opening is indexed with a low weight as
   * context for each of its tools (the same string for every tool of a server).
   */
  readonly serverInstructions?: string;
}

/**
 * Who is asking (a Viewer: the tools of the servers it may see, by maySee), or a predicate over documents, for a
 * caller that narrows the viewer's tools further (compose it with maySee).
 */
export type Visibility = Viewer | ((doc: ToolDocument) => boolean);

export interface SearchOptions {
  /** Results wanted, 1-100 (default 10). */
  readonly limit?: number;
  /** Only tools of servers of these kinds. */
  readonly kinds?: readonly string[];
  /** Only tools of these servers. */
  readonly serverIds?: readonly string[];
  /** Who is asking. Required, so that no caller forgets to scope a search. */
  readonly visible: Visibility;
}

/**
 * How sure the search is that a result serves the request: "high" (it matches nearly every word of the
 * request in some form, covers half of its name, and scores close to the first result), "medium" (it
 * matches at least half), "low" (a weak match, a match found only by reading the words as misspelt or
 * unfinished, or a best guess when nothing matched: score 0).
 */
export type Confidence = 'high' | 'medium' | 'low';

export interface SearchHit {
  readonly doc: ToolDocument;
  /** Relevance, higher is better; comparable only within one result list (0 for a best guess). */
  readonly score: number;
  readonly confidence: Confidence;
}
