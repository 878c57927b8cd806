/**
 * Light stemming: steps 1 and 5 of the Porter stemmer (M.F. Porter, "An algorithm for suffix stripping",
 * 1980), which undo plurals, -ed, -ing, a final -y and a final -e, so that "repositories" and "repository", or "create",
 * "creates", "created" and "creating", meet on one index term. Porter's later steps (-ation, -er, -ment…)
 * are left out on purpose: in tool vocabulary they merge words that mean different things ("manager" and
 * "manage", "container" and "contain", "general" and "generate").
 * Input is one lower-case ASCII word; anything else (digits, short words) comes back unchanged.
 */
export function stem(word: string): string {
  if (word.length <= 2 || !isLowerAscii(word)) return word;
  let w = word;
  w = step1a(w);
  w = step1b(w);
  w = step1c(w);
  return step5(w);
}

function isLowerAscii(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 97 || c > 122) return false;
  }
  return true;
}

function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i);
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false;
  // y is a consonant at the start or after a vowel, a vowel after a consonant
  if (c === 121) return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** m in [C](VC)^m[V]: the number of vowel-consonant sequences in the first `end` letters. */
function measure(w: string, end: number): number {
  let m = 0;
  let i = 0;
  while (i < end && isConsonant(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++;
    if (i >= end) break;
    while (i < end && isConsonant(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string, end: number): boolean {
  return end >= 2 && w[end - 1] === w[end - 2] && isConsonant(w, end - 1);
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false;
  if (!isConsonant(w, end - 1) || isConsonant(w, end - 2) || !isConsonant(w, end - 3)) return false;
  const last = w[end - 1];
  return last !== 'w' && last !== 'x' && last !== 'y';
}

function step1a(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ies')) return w.slice(0, -2);
  // "status", "bus", "virus": an -us ending is not a plural (as in Porter's later English stemmer)
  if (w.endsWith('ss') || w.endsWith('us')) return w;
  if (w.endsWith('s')) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith('eed')) {
    return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  }
  let stemmed: string | undefined;
  if (w.endsWith('ed') && hasVowel(w, w.length - 2)) stemmed = w.slice(0, -2);
  else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) stemmed = w.slice(0, -3);
  if (stemmed === undefined) return w;
  if (stemmed.endsWith('at') || stemmed.endsWith('bl') || stemmed.endsWith('iz')) return stemmed + 'e';
  const n = stemmed.length;
  if (endsDoubleConsonant(stemmed, n)) {
    const last = stemmed[n - 1];
    return last === 'l' || last === 's' || last === 'z' ? stemmed : stemmed.slice(0, -1);
  }
  if (measure(stemmed, n) === 1 && endsCvc(stemmed, n)) return stemmed + 'e';
  return stemmed;
}

function step1c(w: string): string {
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) return w.slice(0, -1) + 'i';
  return w;
}

/** Drops a final -e ("switches" → "switche" → "switch") and a double -ll, where the stem stays long enough. */
function step5(w: string): string {
  let out = w;
  if (out.endsWith('e')) {
    const m = measure(out, out.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(out, out.length - 1))) out = out.slice(0, -1);
  }
  if (out.endsWith('ll') && measure(out, out.length) > 1) out = out.slice(0, -1);
  return out;
}
