import { createHash, randomBytes } from 'node:crypto';

/** Tenant keys look like `mcpr_<43 base64url characters>`: 256 random bits, recognisable in a leak scan. */
export const TENANT_KEY_PREFIX = 'mcpr_';

export function generateApiKey(): string {
  return TENANT_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Only this hash is stored; a key with 256 random bits needs no slow hash. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters of a key, stored so an operator can tell keys apart without holding them. */
export function keyPrefix(key: string): string {
  return key.slice(0, TENANT_KEY_PREFIX.length + 6);
}
