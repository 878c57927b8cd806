import { maySee } from '@app/domain';
import { FIELD_COUNT, Field, fieldTokens } from './fields';
import { DEFAULT_RANKING, RankingParams } from './ranking';
import { Action, actionAgreement, actionOf, alternativesOf, expandPhrases, requestActionOf, rewriteIdioms } from './synonyms';
import { isIndexable, splitWords, termOf } from './tokenizer';
import type { Confidence, SearchHit, SearchOptions, ToolDocument, Visibility } from './tool-document';

/*
 * Layout. Every indexed tool occupies a slot (an integer). Per slot: the document, whether it is live, and
 * the length of its name. Per term: postings, one int each: slot << 9 | in-name bit << 8 | impact. The
 * impact is the term's BM25F weight in that tool without the idf (the field-weighted, length-normalised,
 * saturated term frequency), computed when the tool is indexed and quantised to 8 bits; a query then costs
 * one multiply per posting, and a tool's score does not depend on what else is indexed beyond the document
 * frequencies. Field lengths are normalised by fixed reference lengths (see ranking.ts), so a tool indexed
 * first and one indexed last are treated alike.
 *
 * Each term's postings are kept in two lists: strong ones (the term is in the tool's name, title or first
 * sentence: impact ≥ STRONG_IMPACT) and weak ones (only further down the description or in the arguments).
 * A word typed by the user is looked up in both; its synonyms and completions only in the strong list. A
 * synonym is a guess at what the user meant, and the guess is only worth something where a tool says
 * what it is for; it also spares a query with a common verb ("open", "show") a walk over every tool that
 * mentions "get" somewhere in its notes.
 *
 * A server's tools are replaced by marking their slots dead and appending new ones, so an update touches
 * only the postings of the new tools; dead slots are skipped at query time and dropped by a compaction once
 * they are a quarter of all slots. As in Lucene until segments merge, document frequencies count dead
 * slots until then, which moves scores a little and never lets a removed tool be found.
 *
 * Every public method runs to completion synchronously, so a search never sees a server half replaced.
 */

const SLOT_SHIFT = 9;
const NAME_BIT = 1 << 8;
const IMPACT_MASK = 0xff;
const MAX_SLOTS = 1 << (32 - SLOT_SHIFT);
/**
 * The impact of one mention in a tool's first sentence (field weight 1.5 at reference length) is about 140,
 * in its name about 180; one in the rest of a description about 85, in an argument about 65.
 */
const STRONG_IMPACT = 100;
/** Owner codes of slots (slotOwner) and viewers (viewerCode). */
const DEAD = -1;
const PLATFORM = 0;
const ANY_OWNER = -2;
const NO_TENANT = -3;
/** Scores are rounded to millionths (so that float sums in another order rank the same); a bound allows for it. */
const SCORE_ROUNDING = 1e-6;
/**
 * A typed word found in more than this share of all tools is looked up in its strong list only: that a
 * tenth of the registry mentions "file" somewhere in its notes says nothing, and walking them would be the
 * slowest part of the query.
 */
const COMMON_SHARE = 0.1;
/** …and in more than this many: in a small registry every mention is worth reading, and cheap. */
const COMMON_MIN = 100;
const STRONG = 0;
const WEAK = 1;
const EMPTY = new Int32Array(0);
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 10;
/** Query words beyond this are ignored: a paragraph pasted as a query should not cost more than a sentence. */
const MAX_QUERY_TERMS = 24;
const MIN_PREFIX_LENGTH = 3;
/** Most forms of one query word searched: itself, then its most telling synonyms and completions. */
const MAX_ALTERNATIVES = 16;
/** Words shorter than this are not corrected: too many short words are one letter apart. */
const MIN_TYPO_LENGTH = 4;
/** Known words compared with one misspelt word, per first letter. */
const MAX_TYPO_SCAN = 4096;
/** Most corrections tried for one misspelt word. */
const MAX_CORRECTIONS = 3;
/** The request searched for when nothing matched in any form (see bestGuess). */
const BEST_GUESS_QUERY = 'ask question answer search web';
const COMPACT_MIN_DEAD = 1024;
const COMPACT_DEAD_SHARE = 0.25;

interface ServerEntry {
  readonly serverId: string;
  slots: number[];
}

interface PreparedDoc {
  readonly doc: ToolDocument;
  readonly nameLength: number;
  /** The kinds of action its name says it does (a bit set of Action). */
  readonly actions: number;
  /** Distinct terms and their postings' low bits (in-name bit and impact). */
  readonly terms: Map<string, number>;
  /** Each distinct word as written, with its term. */
  readonly surfaces: Map<string, string>;
}

interface QueryAlternative {
  readonly termId: number;
  readonly weight: number;
}

interface QueryGroup {
  readonly alternatives: QueryAlternative[];
}

interface Candidate {
  readonly slot: number;
  readonly score: number;
  readonly doc: ToolDocument;
  /** Share of the query's words the tool matched, each by the weight of the form that matched (0-1). */
  readonly match: number;
  /** Share of the tool's name the query's words cover. */
  readonly nameMatch: number;
}

export interface ToolSearchIndexOptions {
  readonly ranking?: RankingParams;
  /**
   * What the index keeps of a tool once it is indexed, and hands back in results (default: the document
   * itself). Input schemas and long descriptions are most of a tool's memory; a caller that can load the
   * full definitions of the few tools a search returns may keep only their identity here, e.g.
   * `({ inputSchema, description, annotations, ...rest }) => rest`.
   */
  readonly retain?: (doc: ToolDocument) => ToolDocument;
}

export interface IndexStats {
  readonly tools: number;
  readonly servers: number;
  readonly terms: number;
  /** Postings, those of removed tools not yet compacted away included. */
  readonly postings: number;
  /** Slots of removed tools not yet compacted away. */
  readonly deadSlots: number;
}

export class ToolSearchIndex {
  private readonly ranking: RankingParams;
  private readonly retain: (doc: ToolDocument) => ToolDocument;

  private readonly servers = new Map<string, ServerEntry>();
  /** A small number per tenant that owns tools here, from 1 on (never reused: a tenant's count is small). */
  private readonly tenantCodes = new Map<string, number>();

  // per slot
  private slotDocs: (ToolDocument | undefined)[] = [];
  /**
   * Per slot: whose tool it is (PLATFORM, or the tenant's code in tenantCodes), or DEAD once removed. Searches
   * for a tenant skip the other tenants' tools as they read the postings.
   */
  private slotOwner = new Int32Array(1024);
  private slotNameLengths = new Uint8Array(1024);
  private slotActions = new Uint8Array(1024);
  private slotCount = 0;
  private liveCount = 0;
  private deadCount = 0;

  // per term
  private termIds = new Map<string, number>();
  /** Postings of term t: lists[2t] (strong) and lists[2t + 1] (weak), the first counts[…] entries of each. */
  private lists: Int32Array[] = [];
  private counts: number[] = [];
  private totalPostings = 0;

  // words as written, for completing unfinished query words
  private surfaceTerms = new Map<string, string>();
  private sortedSurfaces: string[] = [];
  private pendingSurfaces: string[] = [];

  // scratch space for one search, sized to the slots
  private acc = new Float64Array(0);
  private groupBest = new Float64Array(0);
  /** Per slot: query words matched, each counted by the weight of the form that matched. */
  private matchedGroups = new Float32Array(0);
  private groupWeight = new Float32Array(0);
  /** Per slot: query words found in the tool's name, each counted by the weight of the form that matched. */
  private nameGroups = new Float32Array(0);
  private groupNameHit = new Float32Array(0);
  private touched = new Int32Array(0);
  private groupTouched = new Int32Array(0);

  constructor(options: ToolSearchIndexOptions = {}) {
    this.ranking = options.ranking ?? DEFAULT_RANKING;
    this.retain = options.retain ?? ((doc) => doc);
  }

  /** Live tools. */
  get size(): number {
    return this.liveCount;
  }

  get serverCount(): number {
    return this.servers.size;
  }

  hasServer(serverId: string): boolean {
    return this.servers.has(serverId);
  }

  stats(): IndexStats {
    return {
      tools: this.liveCount,
      servers: this.servers.size,
      terms: this.termIds.size,
      postings: this.totalPostings,
      deadSlots: this.deadCount,
    };
  }

  /**
   * Makes `docs` the tools of `serverId`, replacing whatever it had; an empty list removes the server.
   * Every document must carry that serverId.
   */
  upsertServerTools(serverId: string, docs: readonly ToolDocument[]): void {
    for (const doc of docs) {
      if (doc.serverId !== serverId) {
        throw new Error(`tool "${doc.toolName}" belongs to server ${doc.serverId}, not ${serverId}`);
      }
    }
    // All analysis happens before the index changes, so a document that fails leaves the old tools in place.
    const prepared = docs.map((doc) => prepare(doc, this.ranking));
    if (this.slotCount + prepared.length > MAX_SLOTS) this.compact();
    if (this.slotCount + prepared.length > MAX_SLOTS) throw new RangeError(`the index holds at most ${MAX_SLOTS} tools`);
    this.dropServerSlots(serverId);
    if (prepared.length === 0) {
      this.servers.delete(serverId);
    } else {
      const entry: ServerEntry = { serverId, slots: [] };
      for (const p of prepared) entry.slots.push(this.addDoc(p));
      this.servers.set(serverId, entry);
    }
    // new words are sorted in here rather than by the next search that completes a word
    if (this.pendingSurfaces.length > 256) this.mergePendingSurfaces();
    this.maybeCompact();
  }

  /** Forgets a server's tools; a server not indexed is no error. */
  removeServer(serverId: string): void {
    this.dropServerSlots(serverId);
    this.servers.delete(serverId);
    this.maybeCompact();
  }

  /**
   * The best-matching tools the caller may see, best first; ties broken by serverId, then tool name. The
   * list is empty only when the caller can see no tool at all: a query that matches nothing as written is
   * tried again with every word taken as possibly misspelt or unfinished, and when that finds nothing
   * either the answer is a best guess (general question-answering and search tools), marked low.
   */
  search(request: string, options: SearchOptions): SearchHit[] {
    const limit = clampLimit(options.limit);
    if (this.liveCount === 0) return [];
    const query = rewriteIdioms(request);
    const accept = acceptor(options);
    const viewer = this.viewerCode(options.visible);
    for (const relaxed of [false, true]) {
      const groups = this.parseQuery(query, relaxed);
      if (groups.length === 0) continue;
      const hits = this.run(query, groups, limit, accept, viewer, relaxed);
      if (hits.length > 0) return hits;
    }
    return this.bestGuess(limit, accept, viewer);
  }

  /**
   * The owner code whose tools (and the platform's) a viewer sees, ANY_OWNER for the administrator and for a
   * predicate (which `accept` applies), or NO_TENANT for a tenant that owns nothing here.
   */
  private viewerCode(visible: Visibility): number {
    if (typeof visible === 'function' || visible?.type !== 'tenant') return ANY_OWNER;
    return this.tenantCodes.get(visible.tenantId) ?? NO_TENANT;
  }

  private ownerCode(tenantId: string | null): number {
    if (tenantId === null) return PLATFORM;
    let code = this.tenantCodes.get(tenantId);
    if (code === undefined) this.tenantCodes.set(tenantId, (code = this.tenantCodes.size + 1));
    return code;
  }

  private run(query: string, groups: QueryGroup[], limit: number, accept: (doc: ToolDocument) => boolean, viewer: number, relaxed: boolean): SearchHit[] {
    const touchedCount = this.accumulate(groups, viewer);
    try {
      return this.select(query, groups.length, touchedCount, limit, accept, relaxed);
    } finally {
      this.resetScratch(touchedCount);
    }
  }

  /**
   * What to offer when no word of the request is known in any form: the tools that answer open questions
   * or search, else any tools the caller may see, in a fixed order. Every one is marked low.
   */
  private bestGuess(limit: number, accept: (doc: ToolDocument) => boolean, viewer: number): SearchHit[] {
    const groups = this.parseQuery(BEST_GUESS_QUERY, false);
    const general = groups.length > 0 ? this.run(BEST_GUESS_QUERY, groups, limit, accept, viewer, true) : [];
    if (general.length > 0) return general.map((h) => ({ ...h, score: 0, confidence: 'low' }));
    const out: Candidate[] = [];
    for (let slot = 0; slot < this.slotCount; slot++) {
      const doc = this.slotDocs[slot];
      if (this.slotOwner[slot] === DEAD || doc === undefined) continue;
      if (out.length === limit && compare(0, doc, slot, out[out.length - 1]) >= 0) continue;
      if (!accept(doc)) continue;
      insertSorted(out, { slot, score: 0, doc, match: 0, nameMatch: 0 }, limit);
    }
    return out.map((c) => ({ doc: c.doc, score: 0, confidence: 'low' }));
  }

  // ---- updates ---------------------------------------------------------------------------------------

  private dropServerSlots(serverId: string): void {
    const entry = this.servers.get(serverId);
    if (!entry) return;
    for (const slot of entry.slots) {
      if (this.slotOwner[slot] === DEAD) continue;
      this.slotOwner[slot] = DEAD;
      this.slotDocs[slot] = undefined;
      this.liveCount--;
      this.deadCount++;
    }
    entry.slots = [];
  }

  private addDoc(p: PreparedDoc): number {
    const slot = this.slotCount++;
    this.ensureSlotCapacity(this.slotCount);
    this.slotDocs[slot] = this.retain(p.doc);
    this.slotOwner[slot] = this.ownerCode(p.doc.tenantId);
    this.slotNameLengths[slot] = Math.min(p.nameLength, 0xff);
    this.slotActions[slot] = p.actions;
    for (const [term, low] of p.terms) this.appendPosting(this.termIdOf(term), slot * (1 << SLOT_SHIFT) + low);
    for (const [surface, term] of p.surfaces) {
      if (!this.surfaceTerms.has(surface)) {
        this.surfaceTerms.set(surface, term);
        this.pendingSurfaces.push(surface);
      }
    }
    this.liveCount++;
    return slot;
  }

  private termIdOf(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.lists.length / 2;
      this.termIds.set(term, id);
      this.lists.push(EMPTY, EMPTY);
      this.counts.push(0, 0);
    }
    return id;
  }

  /** Tools that have the term, removed ones not yet compacted away included. */
  private docFrequency(termId: number): number {
    return this.counts[termId * 2] + this.counts[termId * 2 + 1];
  }

  private appendPosting(termId: number, posting: number): void {
    const at = termId * 2 + ((posting & IMPACT_MASK) >= STRONG_IMPACT ? STRONG : WEAK);
    let list = this.lists[at];
    const n = this.counts[at];
    if (n === list.length) {
      const grown = new Int32Array(Math.max(2, Math.ceil(n * 1.5)));
      grown.set(list);
      this.lists[at] = list = grown;
    }
    list[n] = posting | 0;
    this.counts[at] = n + 1;
    this.totalPostings++;
  }

  private ensureSlotCapacity(needed: number): void {
    if (needed <= this.slotOwner.length) return;
    let cap = this.slotOwner.length;
    while (cap < needed) cap *= 2;
    const owner = new Int32Array(cap);
    owner.set(this.slotOwner);
    this.slotOwner = owner;
    const nameLengths = new Uint8Array(cap);
    nameLengths.set(this.slotNameLengths);
    this.slotNameLengths = nameLengths;
    const actions = new Uint8Array(cap);
    actions.set(this.slotActions);
    this.slotActions = actions;
  }

  private maybeCompact(): void {
    if (this.deadCount < COMPACT_MIN_DEAD || this.deadCount < this.slotCount * COMPACT_DEAD_SHARE) return;
    this.compact();
  }

  /**
   * Renumbers live slots densely and drops the postings of removed tools and the terms no live tool has.
   * Runs by itself once removed tools are a quarter of the index; public for callers that want it now.
   */
  compact(): void {
    const remap = new Int32Array(this.slotCount).fill(-1);
    let next = 0;
    for (let slot = 0; slot < this.slotCount; slot++) if (this.slotOwner[slot] !== DEAD) remap[slot] = next++;

    const docs: (ToolDocument | undefined)[] = new Array(next);
    const owner = new Int32Array(Math.max(1024, next));
    const nameLengths = new Uint8Array(owner.length);
    const actions = new Uint8Array(owner.length);
    for (let slot = 0; slot < this.slotCount; slot++) {
      const to = remap[slot];
      if (to < 0) continue;
      docs[to] = this.slotDocs[slot];
      owner[to] = this.slotOwner[slot];
      nameLengths[to] = this.slotNameLengths[slot];
      actions[to] = this.slotActions[slot];
    }

    const termIds = new Map<string, number>();
    const lists: Int32Array[] = [];
    const counts: number[] = [];
    let total = 0;
    for (const [term, id] of this.termIds) {
      const kept: Int32Array[] = [];
      for (const tier of [STRONG, WEAK]) {
        const list = this.lists[id * 2 + tier];
        const n = this.counts[id * 2 + tier];
        let live = 0;
        for (let i = 0; i < n; i++) if (remap[list[i] >>> SLOT_SHIFT] >= 0) live++;
        const out = live === 0 ? EMPTY : new Int32Array(live);
        let j = 0;
        for (let i = 0; i < n; i++) {
          const to = remap[list[i] >>> SLOT_SHIFT];
          if (to >= 0) out[j++] = (to * (1 << SLOT_SHIFT) + (list[i] & (NAME_BIT | IMPACT_MASK))) | 0;
        }
        kept.push(out);
      }
      if (kept[0].length + kept[1].length === 0) continue;
      termIds.set(term, lists.length / 2);
      lists.push(kept[0], kept[1]);
      counts.push(kept[0].length, kept[1].length);
      total += kept[0].length + kept[1].length;
    }

    const surfaces = new Map<string, string>();
    for (const [surface, term] of this.surfaceTerms) if (termIds.has(term)) surfaces.set(surface, term);

    for (const entry of this.servers.values()) entry.slots = entry.slots.map((s) => remap[s]).filter((s) => s >= 0);

    this.slotDocs = docs;
    this.slotOwner = owner;
    this.slotNameLengths = nameLengths;
    this.slotActions = actions;
    this.slotCount = next;
    this.liveCount = next;
    this.deadCount = 0;
    this.termIds = termIds;
    this.lists = lists;
    this.counts = counts;
    this.totalPostings = total;
    this.surfaceTerms = surfaces;
    this.sortedSurfaces = [...surfaces.keys()].sort();
    this.pendingSurfaces = [];
  }

  // ---- queries ---------------------------------------------------------------------------------------

  /**
   * One group per distinct query word: the word's own term, its synonyms and, for the last word when the
   * query does not end in a space or punctuation (it may still be being typed), the known words it begins.
   * A tool scores the best alternative of each group, so synonyms widen a query without counting twice.
   */
  private parseQuery(query: string, relaxed: boolean): QueryGroup[] {
    const words = splitWords(describeArguments(expandPhrases(query))).filter(isIndexable);
    const typing = /[\p{L}\p{N}]$/u.test(query);
    const groups: QueryGroup[] = [];
    const seenTerms = new Set<string>();
    for (let i = 0; i < words.length && groups.length < MAX_QUERY_TERMS; i++) {
      const word = words[i];
      const term = termOf(word);
      if (seenTerms.has(term)) continue;
      seenTerms.add(term);
      const weights = new Map<string, number>();
      const offer = (t: string, w: number): void => {
        if (w > (weights.get(t) ?? 0)) weights.set(t, w);
      };
      offer(term, 1);
      for (const alt of alternativesOf(term)) offer(alt.term, alt.weight);
      // Only the word being typed is taken as possibly unfinished; an unknown word earlier in the query is
      // more likely a name ("Sam", "Tokyo") than the start of a word, and completing it only adds noise.
      if (word.length >= MIN_PREFIX_LENGTH && (relaxed || (typing && i === words.length - 1))) {
        for (const t of this.completions(word)) offer(t, this.ranking.prefixWeight);
      }
      // A word no tool has, in no form, is most likely misspelt: the known words within a small edit
      // distance stand in for it (every word, when nothing matched as written).
      if (word.length >= MIN_TYPO_LENGTH && (relaxed || !this.isKnown(weights))) {
        for (const t of this.corrections(word)) offer(t, this.ranking.typoWeight);
      }
      const alternatives: (QueryAlternative & { value: number })[] = [];
      const n = this.slotCount;
      for (const [t, weight] of weights) {
        const termId = this.termIds.get(t);
        const df = termId === undefined ? 0 : this.docFrequency(termId);
        if (termId !== undefined && df > 0) {
          alternatives.push({ termId, weight, value: weight * Math.log(1 + (n - df + 0.5) / (df + 0.5)) });
        }
      }
      // A word with many synonyms would otherwise walk the postings of every common verb; the alternatives
      // that can add least (low weight, frequent term) are dropped first, the word itself never.
      alternatives.sort((a, b) => (b.weight === 1 ? 1 : 0) - (a.weight === 1 ? 1 : 0) || b.value - a.value || a.termId - b.termId);
      groups.push({ alternatives: alternatives.slice(0, MAX_ALTERNATIVES) });
    }
    return groups;
  }

  /** Terms of the most frequent known words that start with `prefix` (not the word itself). */
  private completions(prefix: string): string[] {
    this.mergePendingSurfaces();
    const found = new Map<string, number>();
    const consider = (surface: string): void => {
      if (surface.length <= prefix.length || !surface.startsWith(prefix)) return;
      const term = this.surfaceTerms.get(surface);
      if (term === undefined || found.has(term)) return;
      const id = this.termIds.get(term);
      if (id !== undefined) found.set(term, this.docFrequency(id));
    };
    const sorted = this.sortedSurfaces;
    // bounded scan: a two-letter prefix of a huge vocabulary must not walk it all
    for (let i = lowerBound(sorted, prefix), seen = 0; i < sorted.length && seen < 512 && sorted[i].startsWith(prefix); i++, seen++) {
      consider(sorted[i]);
    }
    return [...found]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, this.ranking.maxPrefixExpansions)
      .map(([term]) => term);
  }

  /** Whether any of these terms is in a live tool. */
  private isKnown(weights: Map<string, number>): boolean {
    for (const t of weights.keys()) {
      const id = this.termIds.get(t);
      if (id !== undefined && this.docFrequency(id) > 0) return true;
    }
    return false;
  }

  /**
   * Terms of known words within edit distance 1 of `word` (2 from 8 letters on; a transposition counts
   * one), closest and most frequent first. Only words that begin with the same letter, or with its second
   * letter (a swap of the first two), are compared, and at most a bounded number of them: a misspelling
   * costs a fraction of a millisecond whatever the size of the vocabulary.
   */
  private corrections(word: string): string[] {
    this.mergePendingSurfaces();
    const maxDistance = word.length >= 8 ? 2 : 1;
    const found = new Map<string, { distance: number; df: number }>();
    const sorted = this.sortedSurfaces;
    for (const first of new Set([word[0], word[1]])) {
      for (let i = lowerBound(sorted, first), seen = 0; i < sorted.length && seen < MAX_TYPO_SCAN && sorted[i][0] === first; i++, seen++) {
        const surface = sorted[i];
        if (Math.abs(surface.length - word.length) > maxDistance || surface === word) continue;
        const distance = boundedEditDistance(word, surface, maxDistance);
        if (distance > maxDistance) continue;
        const term = this.surfaceTerms.get(surface);
        const id = term === undefined ? undefined : this.termIds.get(term);
        if (term === undefined || id === undefined) continue;
        const df = this.docFrequency(id);
        const prev = found.get(term);
        if (df > 0 && (!prev || distance < prev.distance)) found.set(term, { distance, df });
      }
    }
    return [...found]
      .sort((a, b) => a[1].distance - b[1].distance || b[1].df - a[1].df || (a[0] < b[0] ? -1 : 1))
      .slice(0, MAX_CORRECTIONS)
      .map(([term]) => term);
  }

  private mergePendingSurfaces(): void {
    if (this.pendingSurfaces.length === 0) return;
    const pending = this.pendingSurfaces.sort();
    const merged: string[] = new Array(this.sortedSurfaces.length + pending.length);
    let i = 0;
    let j = 0;
    let k = 0;
    const old = this.sortedSurfaces;
    while (i < old.length && j < pending.length) merged[k++] = old[i] <= pending[j] ? old[i++] : pending[j++];
    while (i < old.length) merged[k++] = old[i++];
    while (j < pending.length) merged[k++] = pending[j++];
    this.sortedSurfaces = merged;
    this.pendingSurfaces = [];
  }

  private ensureScratch(): void {
    if (this.acc.length >= this.slotCount) return;
    const cap = Math.max(1024, this.slotOwner.length);
    this.acc = new Float64Array(cap);
    this.groupBest = new Float64Array(cap);
    this.matchedGroups = new Float32Array(cap);
    this.groupWeight = new Float32Array(cap);
    this.nameGroups = new Float32Array(cap);
    this.groupNameHit = new Float32Array(cap);
    this.touched = new Int32Array(cap);
    this.groupTouched = new Int32Array(cap);
  }

  /**
   * BM25F over the postings of the query's terms, for the viewer's tools only (see viewerCode); returns how
   * many slots got a score.
   */
  private accumulate(groups: QueryGroup[], viewer: number): number {
    this.ensureScratch();
    const n = this.slotCount;
    const scale = (this.ranking.k1 + 1) / IMPACT_MASK;
    const acc = this.acc;
    const best = this.groupBest;
    const matched = this.matchedGroups;
    const groupWeight = this.groupWeight;
    const nameGroups = this.nameGroups;
    const nameHit = this.groupNameHit;
    const touched = this.touched;
    const groupTouched = this.groupTouched;
    const owner = this.slotOwner;
    let touchedCount = 0;

    for (const group of groups) {
      let groupCount = 0;
      for (const alt of group.alternatives) {
        const altWeight = alt.weight;
        const w = altWeight * Math.log(1 + (n - this.docFrequency(alt.termId) + 0.5) / (this.docFrequency(alt.termId) + 0.5)) * scale;
        const lastTier = altWeight === 1 && this.docFrequency(alt.termId) <= Math.max(COMMON_MIN, n * COMMON_SHARE) ? WEAK : STRONG;
        for (let tier = STRONG; tier <= lastTier; tier++) {
          const list = this.lists[alt.termId * 2 + tier];
          const count = this.counts[alt.termId * 2 + tier];
          for (let i = 0; i < count; i++) {
            const posting = list[i];
            const slot = posting >>> SLOT_SHIFT;
            const o = owner[slot];
            // the platform's and the viewer's own tools; any live one for ANY_OWNER
            if (o !== PLATFORM && o !== viewer && (o === DEAD || viewer !== ANY_OWNER)) continue;
            const s = w * (posting & IMPACT_MASK);
            const prev = best[slot];
            if (prev === 0) {
              groupTouched[groupCount++] = slot;
              if (acc[slot] === 0) touched[touchedCount++] = slot;
            }
            if (altWeight > groupWeight[slot]) groupWeight[slot] = altWeight;
            if ((posting & NAME_BIT) !== 0 && altWeight > nameHit[slot]) nameHit[slot] = altWeight;
            if (s > prev) {
              acc[slot] += s - prev;
              best[slot] = s;
            }
          }
        }
      }
      for (let i = 0; i < groupCount; i++) {
        const slot = groupTouched[i];
        best[slot] = 0;
        matched[slot] += groupWeight[slot];
        groupWeight[slot] = 0;
        nameGroups[slot] += nameHit[slot];
        nameHit[slot] = 0;
      }
    }
    return touchedCount;
  }

  private select(
    query: string,
    groupCount: number,
    touchedCount: number,
    limit: number,
    accept: (doc: ToolDocument) => boolean,
    relaxed: boolean,
  ): SearchHit[] {
    const { coverage, nameCoverage, fullNameBoost, exactNameBoost, serverDecay, actionAgree, actionConflict } = this.ranking;
    const queryWords = splitWords(query).filter(isIndexable);
    const wanted = queryAction(query, queryWords);
    const normalizedQuery = queryWords.join(' ');
    const typedNames = typedIdentifiers(query);
    // more candidates than asked for, so that a server's fourth-best tool can give way to another's best
    const pool = serverDecay < 1 ? Math.min(MAX_LIMIT * 2, limit * 3) : limit;
    const top: Candidate[] = [];
    let floor = -1;
    // The most the factors after the coverage one can multiply a score by, with and without the exact-name
    // boost: once the pool is full, a tool that could not reach its last place even so is not scored further.
    const factorBound = (1 + Math.max(0, nameCoverage)) * Math.max(1, fullNameBoost) * Math.max(1, actionAgree, actionConflict);
    const exactBound = factorBound * Math.max(1, exactNameBoost);
    for (let i = 0; i < touchedCount; i++) {
      const slot = this.touched[i];
      let score = this.acc[slot] * (1 + (coverage * (this.matchedGroups[slot] - 1)) / groupCount);
      const nameLength = this.slotNameLengths[slot];
      // whether the query may spell out the tool's whole name (the exact-name boost below)
      const mayBeExact = nameLength > 0 && (typedNames.size > 0 || nameLength === queryWords.length);
      if (score * factorBound + SCORE_ROUNDING < floor && (!mayBeExact || score * exactBound + SCORE_ROUNDING < floor)) continue;
      if (nameLength > 0) {
        const covered = this.nameGroups[slot];
        score *= 1 + (nameCoverage * Math.min(covered, nameLength)) / nameLength;
        if (covered >= nameLength - 1e-6) {
          score *= fullNameBoost;
          // the document is only read (a cache miss) for the few tools whose name the query may spell out
          if (mayBeExact) {
            const name = (this.slotDocs[slot] as ToolDocument).toolName;
            if (typedNames.has(name.toLowerCase()) || splitWords(name).filter(isIndexable).join(' ') === normalizedQuery) {
              score *= exactNameBoost;
            }
          }
        }
      }
      const agreement = actionAgreement(wanted & ACTION_BITS, this.slotActions[slot]);
      if (agreement < 0) score *= actionConflict;
      else if (agreement > 0 && (wanted & ASKED) === 0) score *= actionAgree;
      score = Math.round(score * 1e6) / 1e6;
      if (score < floor) continue;
      const doc = this.slotDocs[slot] as ToolDocument;
      if (top.length === pool && compare(score, doc, slot, top[top.length - 1]) >= 0) continue;
      if (!accept(doc)) continue;
      insertSorted(top, { slot, score, doc, match: Math.min(1, this.matchedGroups[slot] / groupCount), nameMatch: nameLength > 0 ? Math.min(1, this.nameGroups[slot] / nameLength) : 0 }, pool);
      if (top.length === pool) floor = top[pool - 1].score;
    }
    const chosen = diversify(top, limit, serverDecay, this.ranking.serverFree);
    const best = chosen.length > 0 ? chosen[0].score : 0;
    return chosen.map((c) => ({ doc: c.doc, score: c.score, confidence: relaxed ? 'low' : confidenceOf(c, best) }));
  }

  private resetScratch(touchedCount: number): void {
    for (let i = 0; i < touchedCount; i++) {
      const slot = this.touched[i];
      this.acc[slot] = 0;
      this.matchedGroups[slot] = 0;
      this.nameGroups[slot] = 0;
    }
  }
}

/** The index of the first of the sorted words that is not before `key` (their length when none). */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Analyses one tool: its terms with their impact (BM25F term weight without idf) and whether they are in its name. */
function prepare(doc: ToolDocument, ranking: RankingParams): PreparedDoc {
  const tokens = fieldTokens(doc);
  const weighted = new Map<string, number>();
  const inName = new Set<string>();
  const surfaces = new Map<string, string>();
  for (let f = 0; f < FIELD_COUNT; f++) {
    const { weight, b, referenceLength } = ranking.fields[f];
    const norm = weight / (1 - b + (b * tokens[f].length) / referenceLength);
    for (const t of tokens[f]) {
      weighted.set(t.term, (weighted.get(t.term) ?? 0) + norm);
      if (f === Field.NAME) inName.add(t.term);
      if (!surfaces.has(t.surface)) surfaces.set(t.surface, t.term);
    }
  }
  const terms = new Map<string, number>();
  for (const [term, tf] of weighted) {
    const impact = Math.max(1, Math.round((IMPACT_MASK * tf) / (ranking.k1 + tf)));
    terms.set(term, impact | (inName.has(term) ? NAME_BIT : 0));
  }
  return { doc, nameLength: tokens[Field.NAME].length, actions: actionsOf(tokens), terms, surfaces };
}

/**
 * What a tool does, from the verbs of its name ("get_or_create_label": read and create), else of its
 * title, else from the first word of its description ("Creates a …").
 */
function actionsOf(tokens: readonly (readonly { readonly term: string }[])[]): number {
  for (const f of [Field.NAME, Field.TITLE]) {
    let actions = 0;
    for (const t of tokens[f]) actions |= actionOf(t.term);
    if (actions !== 0) return actions;
  }
  const first = tokens[Field.PURPOSE][0];
  return first === undefined ? 0 : actionOf(first.term);
}

/**
 * The kind of action a request asks for: that of its first word when it is a verb ("delete the old
 * branch"), reading for a question ("which branches are there"), else none. A verb further on is as often
 * a noun ("what changed", "the last update").
 */
function queryAction(query: string, words: readonly string[]): number {
  const first = words.length === 0 ? 0 : requestActionOf(termOf(words[0]));
  if (first !== 0) return first;
  return QUESTION.test(query) ? Action.READ | ASKED : 0;
}

/**
 * Marks an action read from a question rather than a verb: it holds back the tools that would change
 * something, without favouring one reading tool over a tool whose name has no verb ("cron_parse").
 */
const ASKED = 0x80;
const ACTION_BITS = 0x7f;

const QUESTION = /^\W*(what|which|who|whose|where|when|how|is|are|do|does|did|any|have|has)\b/i;

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.max(1, Math.min(MAX_LIMIT, Math.floor(limit)));
}

/**
 * A URL, domain or file name in a query is an argument to the tool, not a description of it: its parts
 * ("https", "example", "com", "json") would match tools at random, while what it is says a lot.
 */
const FILE_NAME = new RegExp(
  '\\b[\\w-]+\\.(?:' +
    'txt|md|markdown|json|ya?ml|toml|ini|cfg|conf|env|csv|tsv|xml|html?|css|pdf|docx?|xlsx?|pptx?|odt|rtf|' +
    'png|jpe?g|gif|svg|webp|bmp|ico|mp[34]|wav|mov|zip|tar|gz|tgz|rar|7z|log|sql|db|sqlite|py|rb|go|rs|java|' +
    'kt|swift|c|h|cpp|hpp|cs|php|sh|bash|ps1|lock|ipynb' +
    ')\\b',
  'gi',
);

export function describeArguments(query: string): string {
  return query
    .replace(/\b(?:https?|ftp):\/\/\S+/gi, ' url ')
    .replace(/(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?:\/\d{1,2})?(?![\w.])/g, ' ip address ')
    .replace(/(?<![\w.])-?\d{1,3}\.\d{2,}\s*,\s*-?\d{1,3}\.\d{2,}(?![\w.])/g, ' coordinates latitude longitude ')
    .replace(/(?<![\w.])v?\d+\.\d+\.\d+(?:-[\w.]+)?(?![\w.])/gi, ' version ')
    .replace(/\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|dev|ai|app|co|edu|gov)\b\S*/gi, ' website ')
    .replace(/(?:^|\s)(?:~|\.{1,2})?\/?(?:[\w.-]+\/)+[\w.-]+/g, ' file ')
    .replace(FILE_NAME, ' file ');
}

/** Words of the query written like tool names (snake_case, kebab-case, camelCase, dotted), lower-cased. */
function typedIdentifiers(query: string): Set<string> {
  const out = new Set<string>();
  for (const raw of query.split(/\s+/)) {
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (/[_\-.]|[a-z][A-Z]/.test(word)) out.add(word.toLowerCase());
  }
  return out;
}

function acceptor(options: SearchOptions): (doc: ToolDocument) => boolean {
  const kinds = options.kinds && options.kinds.length > 0 ? new Set(options.kinds) : undefined;
  const serverIds = options.serverIds && options.serverIds.length > 0 ? new Set(options.serverIds) : undefined;
  const visible = visibility(options.visible);
  return (doc) =>
    (kinds === undefined || kinds.has(doc.serverKind)) &&
    (serverIds === undefined || serverIds.has(doc.serverId)) &&
    visible(doc);
}

function visibility(visible: Visibility): (doc: ToolDocument) => boolean {
  if (typeof visible === 'function') return visible;
  if (visible === null || typeof visible !== 'object' || (visible.type !== 'admin' && visible.type !== 'tenant')) {
    throw new TypeError('search needs a visibility: a viewer ({type: "admin"} or {type: "tenant", tenantId}) or a predicate');
  }
  return (doc) => maySee(visible, doc.tenantId);
}

/** Negative when `score`/`doc` ranks before `c`. */
function compare(score: number, doc: ToolDocument, slot: number, c: Candidate): number {
  if (score !== c.score) return score > c.score ? -1 : 1;
  if (doc.serverId !== c.doc.serverId) return doc.serverId < c.doc.serverId ? -1 : 1;
  if (doc.toolName !== c.doc.toolName) return doc.toolName < c.doc.toolName ? -1 : 1;
  return slot - c.slot;
}

function insertSorted(top: Candidate[], c: Candidate, limit: number): void {
  let lo = 0;
  let hi = top.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(c.score, c.doc, c.slot, top[mid]) < 0) hi = mid;
    else lo = mid + 1;
  }
  top.splice(lo, 0, c);
  if (top.length > limit) top.pop();
}

/**
 * Picks `limit` candidates (sorted best first) greedily, each scored as its score times `decay` to the
 * power of how many tools of its server are already picked beyond the first `free`: one server with hundreds of similar tools
 * cannot fill every place when another server has a tool nearly as good. Ties as in `compare`.
 */
function diversify(sorted: Candidate[], limit: number, decay: number, free: number): Candidate[] {
  if (decay >= 1 || sorted.length <= 1) return sorted.slice(0, limit);
  const picked: Candidate[] = [];
  const perServer = new Map<string, number>();
  const left = [...sorted];
  while (picked.length < limit && left.length > 0) {
    let bestAt = 0;
    let bestValue = -1;
    for (let i = 0; i < left.length; i++) {
      const value = left[i].score * decay ** Math.max(0, (perServer.get(left[i].doc.serverId) ?? 0) - free);
      // left is sorted, so the first of equal values is the one `compare` puts first
      if (value > bestValue) {
        bestValue = value;
        bestAt = i;
      }
    }
    const c = left.splice(bestAt, 1)[0];
    picked.push(c);
    perServer.set(c.doc.serverId, (perServer.get(c.doc.serverId) ?? 0) + 1);
  }
  return picked;
}

/** Share of the query matched from which a result is a "high" match, and the least share for "medium". */
const HIGH_MATCH = 0.8;
const MEDIUM_MATCH = 0.5;
/** …and the share of it that must be in the tool's name for "high". */
const NAME_MATCH = 0.5;
/** A result scoring under this share of the first result's score is one step less sure than its match says. */
const RELATIVE_SCORE = 0.75;

/**
 * How sure the index is that a result is what was asked for: "high" when it matches (nearly) every word of
 * the request, covers at least half of its name, and scores close to the best; "medium" when it matches
 * at least half; "low" otherwise, and always "low" for a result found only by taking the words as misspelt
 * or unfinished, or for a best guess. On the training part of bench/eval a high result is right 60% of the
 * time, a medium one 38%, a low one 5% (first results: 81%, 75%, 42%); see docs/search.md.
 */
function confidenceOf(c: Candidate, best: number): Confidence {
  const close = best <= 0 || c.score >= RELATIVE_SCORE * best;
  if (c.match >= HIGH_MATCH - 1e-6 && c.nameMatch >= NAME_MATCH - 1e-6) return close ? 'high' : 'medium';
  if (c.match >= MEDIUM_MATCH - 1e-6) return close ? 'medium' : 'low';
  return 'low';
}

/**
 * Damerau-Levenshtein distance (adjacent transpositions count one) between two words, or `max + 1` as
 * soon as it is known to exceed `max`.
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = new Array<number>(m + 1);
  let cur = new Array<number>(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        v = Math.min(v, prev2[j - 2] + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m];
}
