import { REDACTED, redactor, urlSecrets, namedSecrets } from './redaction';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');

describe('redacting a server of its own secrets', () => {
  const token = 'tok_9f8e7d6c5b4a3210/+=Zz';
  const redact = redactor([token]);

  it.each([
    ['plain', `here it is: ${token}.`],
    ['JSON-escaped', JSON.stringify({ auth: `Bearer ${token}` })],
    ['percent-encoded', `?t=${encodeURIComponent(token)}`],
    ['percent-encoded, lower-case hex', `?t=${encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`],
    ['form-encoded', `t=${encodeURIComponent(`x ${token} y`).replace(/%20/g, '+')}`],
    ['base64', b64(token)],
    ['base64 without padding', b64(token).replace(/=+$/, '')],
    ['base64url', b64url(token)],
    ['base64 of a header line that holds it (offset 1)', b64(`A${token}`)],
    ['base64 of a header line that holds it (offset 2)', b64(`Authorization: Bearer ${token}\r\n`)],
    ['base64url of a header line', b64url(`x-echo: ${token};`)],
    ['split by spaces', token.split('').join(' ')],
    ['split by newlines', `${token.slice(0, 7)}\n${token.slice(7, 15)}\r\n${token.slice(15)}`],
    ['base64 wrapped at 16 columns', (b64(`authorization: Bearer ${token}`).match(/.{1,16}/g) ?? []).join('\n')],
  ])('removes it %s', (_how, text) => {
    const out = redact(text);
    expect(out).toContain(REDACTED);
    for (const leak of [token, encodeURIComponent(token), b64(token).replace(/=+$/, ''), b64url(token)]) expect(out).not.toContain(leak);
    expect(out.replace(/\s+/g, '')).not.toContain(token);
  });

  it('decodes Basic credentials: the user:pass pair and the password are secrets too, in every encoding', () => {
    const header = `Basic ${b64('robot:pa55-w0rd-xyz')}`;
    const r = redactor([header]);
    for (const text of [header, b64('robot:pa55-w0rd-xyz'), 'robot:pa55-w0rd-xyz', 'the password is pa55-w0rd-xyz', b64('pa55-w0rd-xyz'), encodeURIComponent('robot:pa55-w0rd-xyz')]) {
      expect(r(text)).not.toMatch(/pa55-w0rd-xyz|cGE1NS13MHJkLXh5e|cm9ib3Q6cGE1NS13MHJkLXh5eg/);
    }
    expect(r('robot is a user name, not a secret')).toBe('robot is a user name, not a secret');
  });

  it('redacts a two-character secret where it stands alone, in its encodings too, and leaves words that contain it', () => {
    const r = redactor(['ab']);
    expect(r('key=ab&x=1 "ab" (ab) ab')).toBe(`key=${REDACTED}&x=1 "${REDACTED}" (${REDACTED}) ${REDACTED}`);
    expect(r(`sent ${b64('ab')} or ${b64url('ab')}`)).toBe(`sent ${REDACTED} or ${REDACTED}`);
    expect(r('about a table, abstract lab')).toBe('about a table, abstract lab');
    expect(redactor(['7'])('port 7 of 77')).toBe(`port ${REDACTED} of 77`);
  });

  it('finds the secrets of a URL and of credential-named variables', () => {
    expect(urlSecrets(new URL('https://bot:hunter2-pw@mcp.example.com/x?api_key=k-123456&page=2&token=tk'))).toEqual(['hunter2-pw', 'bot:hunter2-pw', 'k-123456']);
    expect(namedSecrets({ GITHUB_TOKEN: 'ghp_abcdef', MODE: 'fast', DEBUG_TOKEN: '1', DB_PASSWORD: 'pw-123456' })).toEqual(['ghp_abcdef', 'pw-123456']);
  });

  it('removes what a secret cut by a bound left at that end of the text, in its encodings and across white space', () => {
    const secret = 'whsec_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA';
    const r = redactor([secret]);
    // The beginning of the secret at the end of a text read up to a bound, then its end at the start of a kept tail.
    expect(r(`the receiver says: ${secret.slice(0, 17)}`, { end: true })).toBe(`the receiver says: ${REDACTED}`);
    expect(r(`${secret.slice(9)} and then the rest`, { start: true })).toBe(`${REDACTED} and then the rest`);
    expect(r(`wrapped: ${secret.slice(0, 6)}\n  ${secret.slice(6, 12)}`, { end: true })).toBe(`wrapped: ${REDACTED}`);
    expect(r(`json: ${JSON.stringify({ s: secret }).slice(0, 14)}`, { end: true })).not.toContain(secret.slice(0, 6));
    // A character the cut split in its bytes (U+FFFD) does not hide the part before it.
    expect(r(`x ${secret.slice(0, 10)}\ufffd`, { end: true })).toBe(`x ${REDACTED}`);
    // Under MIN_CUT_PART characters, or a text that was not cut: left as it is.
    expect(r(`ends with ${secret.slice(0, 3)}`, { end: true })).toBe(`ends with ${secret.slice(0, 3)}`);
    expect(r(`ends with ${secret.slice(0, 17)}`)).toBe(`ends with ${secret.slice(0, 17)}`);
    expect(r('an answer with nothing of it', { start: true, end: true })).toBe('an answer with nothing of it');
  });

  it('changes nothing without secrets', () => {
    expect(redactor([])('anything at all')).toBe('anything at all');
    expect(redactor([''])('anything at all')).toBe('anything at all');
  });
});
