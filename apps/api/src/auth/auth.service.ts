import { AppConfig, APP_CONFIG } from '@app/config';
import { ApiKeyRepository, isDatabaseUnavailable } from '@app/database';
import { Principal, UnauthenticatedError } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { hashApiKey } from './api-key.secret';

interface CachedPrincipal {
  principal: Principal;
  /** When the lookup that found it started. */
  at: number;
}

/** How long a key lookup is reused: a key revoked in another process stops working within this. */
const CACHE_TTL_MS = 1000;
/** A key in use is looked up again in the background once its lookup is this old, so requests never wait for it. */
const REFRESH_AFTER_MS = CACHE_TTL_MS / 2;
const CACHE_MAX = 10_000;
/**
 * While PostgreSQL cannot be reached, a key looked up successfully within this long is still taken (nothing can
 * be revoked meanwhile: a revocation is a write): tool calls and searches go on from memory through an outage.
 */
const OUTAGE_GRACE_MS = 10 * 60_000;
/** lastUsedAt is written at most this often per key. */
const TOUCH_EVERY_MS = 60_000;

const BEARER = /^Bearer[ \t]+([\x21-\x7e]{1,1024})[ \t]*$/i;

/**
 * Turns an `Authorization: Bearer` header into a Principal: the admin key from
 * configuration (compared in constant time) or a tenant key (looked up by its
 * sha256). Lookups are cached for a second; a revocation in this process drops
 * the cached entry at once. Requests that need the same key looked up share
 * one lookup, and a key in steady use is looked up again in the background
 * before its entry runs out.
 */
@Injectable()
export class AuthService {
  private readonly adminDigest: Buffer;
  private readonly cache = new Map<string, CachedPrincipal>();
  private readonly touched = new Map<string, number>();
  private readonly inflight = new Map<string, Promise<Principal | null>>();
  /** Bumped by forget(): a lookup that started before a revocation does not put its answer back. */
  private generation = 0;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly keys: ApiKeyRepository,
  ) {
    this.adminDigest = createHash('sha256').update(config.adminApiKey, 'utf8').digest();
  }

  async authenticate(authorization: string | string[] | undefined): Promise<Principal> {
    if (authorization === undefined) throw new UnauthenticatedError('an API key is required: send Authorization: Bearer <key>');
    const match = typeof authorization === 'string' ? BEARER.exec(authorization) : null;
    if (!match) throw new UnauthenticatedError('the Authorization header must be "Bearer <key>"');
    const key = match[1];
    const digest = createHash('sha256').update(key, 'utf8').digest();
    if (timingSafeEqual(digest, this.adminDigest)) return { type: 'admin', keyId: 'admin' };

    const hash = digest.toString('hex');
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && now - cached.at < CACHE_TTL_MS) {
      if (now - cached.at >= REFRESH_AFTER_MS) void this.lookup(hash, key).catch(() => undefined);
      return cached.principal;
    }
    let principal: Principal | null;
    try {
      principal = await this.lookup(hash, key);
    } catch (err) {
      if (cached && now - cached.at < OUTAGE_GRACE_MS && isDatabaseUnavailable(err)) return cached.principal;
      throw err;
    }
    if (!principal) throw new UnauthenticatedError('the API key is not valid (unknown or revoked)');
    return principal;
  }

  /** Looks a key up (one lookup at a time per key) and caches what it finds. */
  private lookup(hash: string, key: string): Promise<Principal | null> {
    const running = this.inflight.get(hash);
    if (running) return running;
    const generation = this.generation;
    const started = Date.now();
    const promise = (async () => {
      const record = await this.keys.findActiveByHash(hashApiKey(key));
      if (!record) {
        this.cache.delete(hash);
        return null;
      }
      const principal: Principal = { type: 'tenant', tenantId: record.tenantId, keyId: record.id };
      if (generation === this.generation) {
        if (this.cache.size >= CACHE_MAX) this.cache.clear();
        this.cache.set(hash, { principal, at: started });
      }
      this.touch(record.id, started);
      return principal;
    })().finally(() => {
      if (this.inflight.get(hash) === promise) this.inflight.delete(hash);
    });
    this.inflight.set(hash, promise);
    return promise;
  }

  /** Forgets cached lookups of one key (after its revocation), or of every key. */
  forget(keyId?: string): void {
    this.generation++;
    this.inflight.clear();
    for (const [hash, entry] of this.cache) {
      if (keyId === undefined || (entry.principal.type === 'tenant' && entry.principal.keyId === keyId)) this.cache.delete(hash);
    }
  }

  private touch(keyId: string, now: number): void {
    if ((this.touched.get(keyId) ?? 0) + TOUCH_EVERY_MS > now) return;
    if (this.touched.size >= CACHE_MAX) this.touched.clear();
    this.touched.set(keyId, now);
    // Bookkeeping only: a failed write must not fail the request.
    this.keys.touch(keyId, new Date(now)).catch(() => undefined);
  }
}
