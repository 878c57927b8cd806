import { APP_CONFIG, AppConfig } from '@app/config';
import { Principal, RateLimitedError } from '@app/domain';
import { QUEUE_CONNECTION, QueueConnection, withTimeout } from '@app/queue';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type IORedis from 'ioredis';

/**
 * One token bucket per key, in Redis, updated atomically by this script: a bucket holds up to `capacity`
 * tokens and gains `rate` tokens per millisecond. A caller asks for up to `want` tokens and gets what the
 * bucket has (whole tokens); with none, it learns the milliseconds until one will be there. Redis's own
 * clock is used, so replicas with skewed clocks agree. Returns {granted, waitMs}.
 */
const TAKE_SCRIPT = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1])
local ts = tonumber(b[2])
if tokens == nil or ts == nil then
  tokens = capacity
  ts = now
end
tokens = math.min(capacity, tokens + math.max(0, now - ts) * rate)
local granted = math.min(want, math.floor(tokens))
local wait = 0
if granted >= 1 then
  tokens = tokens - granted
else
  granted = 0
  wait = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate) + 1000)
return {granted, wait}
`;

/** Tokens a replica took from the shared bucket and may spend without asking again, until `until`. */
interface Lease {
  tokens: number;
  until: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Leased tokens not spent within this long are given up (dropped), so no replica sits on a tenant's calls. */
const LEASE_MS = 1000;

/** How long a call waits for Redis's answer before it is limited in this process instead. */
const REDIS_TIMEOUT_MS = 1000;

type TokenScript = { takeTokens(key: string, capacity: number, rate: number, want: number): Promise<[number, number]> };

/**
 * The per-tenant limit on tool calls (RATE_LIMIT_PER_MINUTE; 0 turns it off): a token bucket that holds a
 * minute's worth of calls and refills continuously. On Redis when REDIS_URL is set, so that the limit holds
 * across API replicas; in this process otherwise, or for as long as Redis does not answer. A replica takes
 * tokens from Redis a few at a time (a twentieth of the limit) and spends them locally, so that a busy tenant
 * does not cost every call a round trip: the shared count is never exceeded, and at most that many calls per
 * replica are refused early. The platform administrator is not limited. Redis is the queue's connection: one
 * per process.
 */
@Injectable()
export class CallRateLimiter {
  private readonly logger = new Logger(CallRateLimiter.name);
  private readonly capacity: number;
  /** Tokens per millisecond. */
  private readonly rate: number;
  private readonly chunk: number;
  private readonly redis?: IORedis;
  private readonly prefix: string;
  private readonly leases = new Map<string, Lease>();
  private readonly local = new Map<string, Bucket>();
  private warnedAt = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(QUEUE_CONNECTION) queue: QueueConnection) {
    this.capacity = config.call.rateLimitPerMinute;
    this.rate = this.capacity / 60_000;
    this.chunk = Math.max(1, Math.floor(this.capacity / 20));
    this.prefix = `${config.queuePrefix}:ratelimit:`;
    if (queue.redisClient && this.capacity > 0) {
      this.redis = queue.redisClient;
      if (!('takeTokens' in this.redis)) this.redis.defineCommand('takeTokens', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    }
  }

  /** Takes one call from the caller's bucket, or throws RateLimitedError with the seconds to wait. */
  async take(principal: Principal): Promise<void> {
    if (this.capacity <= 0 || principal.type !== 'tenant') return;
    const key = principal.tenantId;
    const now = Date.now();
    const lease = this.leases.get(key);
    if (lease && lease.tokens > 0 && lease.until > now) {
      lease.tokens--;
      return;
    }
    const { granted, waitMs } = await this.takeShared(key).catch((err: Error) => {
      if (Date.now() - this.warnedAt > 60_000) {
        this.warnedAt = Date.now();
        this.logger.warn({ err: err.message }, 'Redis did not answer the rate limit; limiting in this process until it does');
      }
      return this.takeLocal(key);
    });
    if (granted > 0) {
      if (granted > 1) this.leases.set(key, { tokens: granted - 1, until: now + LEASE_MS });
      else this.leases.delete(key);
      return;
    }
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new RateLimitedError(`the tenant's tool calls are limited to ${this.capacity} per minute; try again in ${seconds} s`, seconds);
  }

  private async takeShared(key: string): Promise<{ granted: number; waitMs: number }> {
    if (!this.redis) return this.takeLocal(key);
    // While Redis is away a call does not wait for it (commandTimeout): it is limited here at once.
    if (this.redis.status !== 'ready') throw new Error(`Redis is ${this.redis.status}`);
    const redis = this.redis as unknown as TokenScript;
    const [granted, waitMs] = await withTimeout(redis.takeTokens(this.prefix + key, this.capacity, this.rate, this.chunk), REDIS_TIMEOUT_MS, 'Redis did not answer in time');
    return { granted: Number(granted), waitMs: Number(waitMs) };
  }

  /** The same bucket in this process: without Redis, or while it does not answer. One token at a time. */
  private takeLocal(key: string): { granted: number; waitMs: number } {
    const now = Date.now();
    const b = this.local.get(key) ?? { tokens: this.capacity, at: now };
    b.tokens = Math.min(this.capacity, b.tokens + Math.max(0, now - b.at) * this.rate);
    b.at = now;
    this.local.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { granted: 1, waitMs: 0 };
    }
    return { granted: 0, waitMs: Math.ceil((1 - b.tokens) / this.rate) };
  }
}
