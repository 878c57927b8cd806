import { stem } from './stemmer';

/**
 * Words that say nothing about what a tool does. Besides the usual English function words this holds the
 * filler people put around a request to an agent ("please", "can you", "I want to"), since a tool
 * description that contains them is no better a match for it.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between ' +
    'both but by can could did do does doing done down during each etc few for from further had has have having he ' +
    'her here hers herself him himself his how however i if in into is it its itself just let lets like may me might ' +
    'mine more most must my myself no nor not now of off on once only or other our ours ourselves out over own ' +
    'please same shall she should so some such than that the their theirs them themselves then there these they ' +
    'this those through to too under until up us very via was we were what whats when where which while who whom ' +
    'why will with would yet you your yours yourself yourselves ' +
    'also always anything everything something thing things want wants need needs help hey hi ok okay thanks ' +
    'able every eg ie use used using uses whether within without'
  ).split(/\s+/),
);

/** One word of a text: as written (lower-cased) and as indexed (stemmed). */
export interface Token {
  readonly surface: string;
  readonly term: string;
}

const MAX_WORD_LENGTH = 40;

/**
 * Splits a text into lower-case words: on anything not a letter or digit (so snake_case, kebab-case,
 * dotted.names and paths come apart) and on camelCase / PascalCase boundaries ("listPullRequests",
 * "HTTPServer" → "http server"). A word split at case boundaries is also kept whole, after its parts,
 * because product names are written that way: "GitHub" gives "git", "hub" and "github", so that both
 * "github" and "git hub" find it. Letters and digits stay together ("oauth2", "ec2").
 */
export function splitWords(text: string): string[] {
  // A hand-written scan rather than regular expressions: tokenizing is most of the cost of indexing a tool.
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && kindOf(text, i) === OTHER) i++;
    if (i >= n) break;
    const start = i;
    let partStart = i;
    let parts = 0;
    let prev = kindOf(text, i);
    i++;
    for (; i < n; i++) {
      const kind = kindOf(text, i);
      if (kind === OTHER) break;
      // camelCase: "tP" in "listPull"; acronyms: "PS" in "HTTPServer" (an upper before upper-then-lower)
      const boundary =
        kind === UPPER &&
        (prev === LOWER || prev === DIGIT || (prev === UPPER && i + 1 < n && kindOf(text, i + 1) === LOWER));
      if (boundary) {
        pushWord(out, text.slice(partStart, i));
        parts++;
        partStart = i;
      }
      prev = kind;
    }
    pushWord(out, text.slice(partStart, i));
    if (parts > 0) pushWord(out, text.slice(start, i));
  }
  return out;
}

const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const NON_ASCII_UPPER = /\p{Lu}/u;
const NON_ASCII_WORD = /[\p{L}\p{N}\p{M}]/u;

function kindOf(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 97 && c <= 122) return LOWER;
  if (c >= 65 && c <= 90) return UPPER;
  if (c >= 48 && c <= 57) return DIGIT;
  if (c < 128) return OTHER;
  const ch = text[i];
  if (!NON_ASCII_WORD.test(ch)) return OTHER;
  return NON_ASCII_UPPER.test(ch) ? UPPER : LOWER;
}

function pushWord(out: string[], word: string): void {
  if (word.length <= MAX_WORD_LENGTH) out.push(word.toLowerCase());
}

/** Whether a lower-case word is kept as a search term. */
export function isIndexable(word: string): boolean {
  if (STOP_WORDS.has(word)) return false;
  // single letters say nothing, and bare numbers are arguments ("PR 42", "5 replicas"), not intent
  return word.length > 1 && !isNumber(word);
}

const STEM_CACHE_LIMIT = 20_000;
let stemCache = new Map<string, string>();

function isNumber(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The index term for a lower-case word: its stem (remembered, since tool texts repeat their words a lot). */
export function termOf(word: string): string {
  let term = stemCache.get(word);
  if (term === undefined) {
    term = stem(word);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache = new Map();
    stemCache.set(word, term);
  }
  return term;
}

/** Words of a text as search terms, stop words dropped, in order (repeats kept, so term frequency counts). */
export function tokenize(text: string, maxTokens = Number.POSITIVE_INFINITY): Token[] {
  const out: Token[] = [];
  for (const w of splitWords(text)) {
    if (!isIndexable(w)) continue;
    out.push({ surface: w, term: termOf(w) });
    if (out.length >= maxTokens) break;
  }
  return out;
}
