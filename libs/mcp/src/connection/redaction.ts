/**
 * Removing a server's own secrets from what it sends back. A server may echo what it was given (its request
 * headers, its environment) into its name, instructions, tool descriptions, schemas and error messages, in any
 * encoding; every one of these is matched:
 * - the value as it is, and the token of an `Authorization`-style value (`Bearer x`, `Basic x`), and for
 *   `Basic` the decoded `user:pass` and the password;
 * - JSON-escaped (as a server writes it into a JSON string by hand, `\"`, `\\`, `\u00e9`);
 * - URL-encoded (percent-encoding in either case, `+` for spaces);
 * - base64, standard and URL-safe, with and without padding, and at each of the three byte alignments at which
 *   a secret can sit inside a longer base64 text (a whole header line encoded, say);
 * - split by white space (spaces, newlines, a base64 text wrapped at 76 columns): white space may come between
 *   any two characters of a long variant.
 *
 * A short secret (under 8 characters, 2 or 3 included) is not exempt, but matching it anywhere would destroy
 * ordinary text ("ab" in "about"): a short variant is redacted only as a whole token, where neither side
 * touches a letter or a digit ("key ab", "=ab&", "\"ab\""), and never across white space.
 */
export type Redactor = (text: string, cut?: Cut) => string;

/**
 * Where a text was cut to a bound before it reached the redactor (the first bytes of a receiver's answer, the
 * last of a child's stderr): a secret written across the cut left only a part of itself there, which is removed
 * too when it is at least MIN_CUT_PART characters long (white space between them allowed, as for the whole).
 */
export interface Cut {
  /** The text is the end of something longer: it may begin with the end of a secret. */
  start?: boolean;
  /** The text is the beginning of something longer: it may end with the beginning of a secret. */
  end?: boolean;
}

export const REDACTED = '[redacted]';

/** Variants at least this long are matched anywhere (and across white space); shorter ones as whole tokens. */
const LONG = 8;
/** A base64 fragment of an unaligned secret is only matched when at least this long (shorter ones are noise). */
const MIN_FRAGMENT = 8;
/** The shortest part of a secret left at a cut that is removed (shorter ones are removed only as part of the whole). */
const MIN_CUT_PART = 4;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** The secrets behind a value: itself, the token of `Bearer x` / `Basic x`, and what a Basic token decodes to. */
function expand(secret: string): string[] {
  const out = [secret];
  const scheme = /^(Bearer|Basic|Token|Bot)\s+(\S+)$/i.exec(secret.trim());
  if (scheme) {
    out.push(scheme[2]);
    if (scheme[1].toLowerCase() === 'basic') {
      const decoded = Buffer.from(scheme[2], 'base64').toString('utf8');
      if (decoded.includes(':') && !decoded.includes('\ufffd')) {
        out.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
      }
    }
  }
  return out.filter((s) => s.length > 0);
}

function base64Variants(bytes: Buffer, out: Set<string>, exact: boolean): void {
  for (let k = 0; k < 3; k++) {
    const padded = Buffer.concat([Buffer.alloc(k), bytes]);
    const std = padded.toString('base64');
    // The characters that depend on the secret's bytes alone: after the k leading bytes, before a partial tail.
    const start = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * (k + bytes.length)) / 6);
    const fragment = std.slice(start, end);
    if (k === 0 && exact) {
      out.add(std);
      out.add(std.replace(/=+$/, ''));
    }
    if (fragment.length >= MIN_FRAGMENT || (k === 0 && exact)) out.add(fragment);
  }
  for (const v of [...out]) if (/[+/]/.test(v)) out.add(v.replace(/\+/g, '-').replace(/\//g, '_'));
}

/** Every encoding a server could echo a secret in. */
export function secretVariants(secret: string): Set<string> {
  const out = new Set<string>();
  for (const s of expand(secret)) {
    out.add(s);
    const json = JSON.stringify(s).slice(1, -1);
    out.add(json);
    out.add(json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    const url = encodeURIComponent(s);
    out.add(url);
    out.add(url.replace(/%20/g, '+'));
    out.add(url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
    const b64 = new Set<string>();
    base64Variants(Buffer.from(s, 'utf8'), b64, true);
    for (const v of b64) out.add(v);
  }
  out.delete('');
  return out;
}

function pattern(variant: string): string {
  if (variant.length >= LONG) return [...variant].map(escapeRegex).join('\\s*');
  return `(?<![A-Za-z0-9])${escapeRegex(variant)}(?![A-Za-z0-9])`;
}

const unchanged: Redactor = (text) => text;

/** Whether a redactor has no secret to remove (it returns every text unchanged). */
export function redactsNothing(redact: Redactor): boolean {
  return redact === unchanged;
}

/** A redactor for these secret values (an empty list gives one that returns its text unchanged). */
export function redactor(secrets: readonly string[]): Redactor {
  const variants = new Set<string>();
  for (const s of secrets) if (s) for (const v of secretVariants(s)) variants.add(v);
  if (variants.size === 0) return unchanged;
  const sorted = [...variants].sort((a, b) => b.length - a.length);
  const re = new RegExp(sorted.map(pattern).join('|'), 'g');
  const reversed = sorted.map(reverse);
  return (text, cut) => {
    if (!text) return text;
    let out = text.replace(re, REDACTED);
    if (cut?.end) {
      const at = partAtEnd(out, sorted);
      if (at < out.length) out = out.slice(0, at) + REDACTED;
    }
    if (cut?.start) {
      const at = partAtEnd(reverse(out), reversed);
      if (at < out.length) out = REDACTED + out.slice(out.length - at);
    }
    return out;
  };
}

function reverse(text: string): string {
  return [...text].reverse().join('');
}

/**
 * Where the end of `text` begins that is the beginning of a variant (at least MIN_CUT_PART characters of it, white
 * space between them allowed): what a secret cut off by the bound left behind. `text.length` where there is none.
 */
function partAtEnd(text: string, variants: readonly string[]): number {
  const longest = variants[0]?.length ?? 0;
  // The last non-space characters, with where each stands in the text (a character the cut split in its bytes,
  // decoded as U+FFFD, is passed over like white space).
  const chars: string[] = [];
  const at: number[] = [];
  for (let i = text.length - 1; i >= 0 && chars.length < longest; i--) {
    if (/[\s\ufffd]/.test(text[i])) continue;
    chars.unshift(text[i]);
    at.unshift(i);
  }
  const tail = chars.join('');
  let cutAt = text.length;
  for (const variant of variants) {
    const v = variant.replace(/\s+/g, '');
    for (let k = Math.min(v.length - 1, tail.length); k >= MIN_CUT_PART; k--) {
      if (tail.endsWith(v.slice(0, k))) {
        cutAt = Math.min(cutAt, at[chars.length - k]);
        break;
      }
    }
  }
  return cutAt;
}

/** Query parameters whose values are credentials (`?api_key=…`), by name. */
const SECRET_NAME = /(key|token|secret|passw(or)?d|pwd|auth|credential|signature|sig|session|cookie)/i;

/** The secrets a URL carries: its user name and password (and the two as `user:pass`), and credential-like query values. */
export function urlSecrets(url: URL): string[] {
  const out: string[] = [];
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  if (pass) out.push(pass, `${user}:${pass}`);
  else if (user) out.push(user);
  for (const [name, value] of url.searchParams) if (value.length >= 4 && SECRET_NAME.test(name)) out.push(value);
  return out;
}

/** The values of environment variables and headers whose names say they hold credentials. */
export function namedSecrets(entries: Record<string, string>): string[] {
  return Object.entries(entries)
    // A flag (`DEBUG_TOKEN=1`) is not a credential: values picked by their name alone are at least 4 characters.
    .filter(([name, value]) => value.length >= 4 && SECRET_NAME.test(name))
    .map(([, value]) => value);
}
