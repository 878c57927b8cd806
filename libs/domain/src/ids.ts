import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix time in milliseconds, then a 12-bit counter that orders the ids this
 * process makes within one millisecond, then random bits. Ids made one after another sort in the order they were
 * made, so records created together by one statement (a batch registration, which shares one creation time) list in
 * the order they were given, and new rows land at the end of their primary-key index.
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    // More than 4,096 ids in one millisecond (or a clock that went back): borrow the next millisecond.
    lastMs++;
    counter = 0;
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one reading of an id (a server, tenant, key or run id) a client gives: a UUID in any letter case,
 * answered in the canonical lower-case form every id is stored, keyed and compared in; undefined for
 * anything else. Upper-case ids name the same record as lower-case ones (RFC 9562 §4).
 */
export function canonicalId(value: unknown): string | undefined {
  return typeof value === 'string' && UUID.test(value) ? value.toLowerCase() : undefined;
}
