import { ServerCredentials } from '@app/domain';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface CipherKey {
  id: string;
  key: Buffer;
}

/** A stored ciphertext that no configured key opens, or that was tampered with. */
export class CredentialsDecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsDecryptError';
  }
}

const VERSION = 'v1';

/**
 * AES-256-GCM envelope for credentials at rest: `v1.<keyId>.<iv>.<tag>.<ciphertext>`
 * (base64url parts). The key id lets CREDENTIALS_KEY rotate: new writes use the
 * current key, older ciphertexts open with a key from CREDENTIALS_KEYS_PREVIOUS.
 * The server id is bound as additional data, so a ciphertext copied onto another
 * server does not open.
 */
export class CredentialsCipher {
  private readonly keys: Map<string, Buffer>;

  constructor(
    private readonly current: CipherKey,
    previous: CipherKey[] = [],
  ) {
    this.keys = new Map([[current.id, current.key], ...previous.map((k) => [k.id, k.key] as [string, Buffer])]);
  }

  encrypt(credentials: ServerCredentials, serverId: string): string {
    return this.seal(credentials, serverId);
  }

  decrypt(envelope: string, serverId: string): ServerCredentials {
    return this.open<ServerCredentials>(envelope, serverId);
  }

  /** Any JSON value (OAuth tokens, a client secret, a PKCE verifier) sealed like credentials, bound to `boundTo`. */
  seal(value: unknown, boundTo: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const plaintext = Buffer.from(JSON.stringify(value), 'utf8');
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, this.current.id, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** Opens what seal() wrote for the same `boundTo`. */
  open<T>(envelope: string, boundTo: string): T {
    const parts = envelope.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new CredentialsDecryptError('stored credentials have an unknown format');
    const key = this.keys.get(parts[1]);
    if (!key) throw new CredentialsDecryptError(`stored credentials were encrypted with key ${parts[1]}, which is not configured`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2], 'base64url'));
      decipher.setAAD(Buffer.from(boundTo));
      decipher.setAuthTag(Buffer.from(parts[3], 'base64url'));
      const plaintext = Buffer.concat([decipher.update(Buffer.from(parts[4], 'base64url')), decipher.final()]);
      return JSON.parse(plaintext.toString('utf8')) as T;
    } catch {
      throw new CredentialsDecryptError('stored credentials could not be decrypted (wrong key or tampered)');
    }
  }

  /** Whether this envelope was written with an older key and should be re-encrypted. */
  needsRotation(envelope: string): boolean {
    return envelope.split('.')[1] !== this.current.id;
  }
}
