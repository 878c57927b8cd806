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
  const out: string[] = [];
  const re = /[\p{L}\p{N}]+/gu;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const run = m[0];
    const parts = run
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .split(' ');
    for (const part of parts) {
      if (part.length <= MAX_WORD_LENGTH) out.push(part.toLowerCase());
    }
    if (parts.length > 1 && run.length <= MAX_WORD_LENGTH) out.push(run.toLowerCase());
  }
  return out;
}

/** Whether a lower-case word is kept as a search term. */
export function isIndexable(word: string): boolean {
  if (STOP_WORDS.has(word)) return false;
  // single letters say nothing, and bare numbers are arguments ("PR 42", "5 replicas"), not intent
  return word.length > 1 && !/^[0-9]+$/.test(word);
}

/** The index term for a lower-case word: its Porter stem. */
export function termOf(word: string): string {
  return stem(word);
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
