import { randomBytes } from 'node:crypto';
import { CredentialsCipher, CredentialsDecryptError } from './credentials-cipher';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('CredentialsCipher', () => {
  it('round-trips credentials and never contains the plaintext', () => {
    const c = new CredentialsCipher(key('k1'));
    const env = c.encrypt({ bearerToken: 'tok-secret-123', headers: { 'X-Api-Key': 'hdr-secret' } }, 'server-1');
    expect(env).not.toContain('tok-secret-123');
    expect(Buffer.from(env.split('.')[4], 'base64url').toString('latin1')).not.toContain('tok-secret');
    expect(c.decrypt(env, 'server-1')).toEqual({ bearerToken: 'tok-secret-123', headers: { 'X-Api-Key': 'hdr-secret' } });
  });

  it('binds the ciphertext to its server', () => {
    const c = new CredentialsCipher(key('k1'));
    const env = c.encrypt({ bearerToken: 't' }, 'server-1');
    expect(() => c.decrypt(env, 'server-2')).toThrow(CredentialsDecryptError);
  });

  it('detects tampering', () => {
    const c = new CredentialsCipher(key('k1'));
    const parts = c.encrypt({ bearerToken: 'abcdef' }, 's').split('.');
    const body = Buffer.from(parts[4], 'base64url');
    body[0] ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => c.decrypt(parts.join('.'), 's')).toThrow(/tampered/);
  });

  it('opens old ciphertexts after a key rotation and flags them for re-encryption', () => {
    const old = key('old');
    const before = new CredentialsCipher(old);
    const env = before.encrypt({ bearerToken: 'x' }, 's');
    const after = new CredentialsCipher(key('new'), [old]);
    expect(after.decrypt(env, 's')).toEqual({ bearerToken: 'x' });
    expect(after.needsRotation(env)).toBe(true);
    expect(after.needsRotation(after.encrypt({ bearerToken: 'x' }, 's'))).toBe(false);
    expect(() => new CredentialsCipher(key('other')).decrypt(env, 's')).toThrow(/not configured/);
  });
});
