import { createPostgresBackend, Queue as RedisQueue, Worker as RedisWorker, withBackend } from 'bullmq';
import type { Job, Processor, QueueOptions, WorkerOptions } from 'bullmq';
import IORedis from 'ioredis';

export type QueueBackendKind = 'redis' | 'postgres';

/** A BullMQ queue or worker, whichever backend carries it (their generic parameters differ per backend). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the two backends' classes only share this shape
type AnyQueue = RedisQueue<any, any, string>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyWorker = RedisWorker<any, any, string>;

export interface QueueConnectionOptions {
  redisUrl?: string;
  databaseUrl: string;
  /** Namespaces keys on Redis (tests give each file its own). */
  prefix: string;
  /** Told once when Redis stops answering and once when it answers again (not at every retry). */
  onOutage?: (event: { state: 'down'; reason: string } | { state: 'up'; downMs: number }) => void;
}

/** Raised when the queue's datastore cannot be reached at start. */
export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

function describeRedis(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '6379'}`;
}

/**
 * Owns the connections of the job queue: BullMQ on Redis through ioredis when
 * REDIS_URL is set, else BullMQ's PostgreSQL backend in the registry's own
 * database. Everything else speaks to queues through this class.
 */
export class QueueConnection {
  private readonly redis?: IORedis;
  private readonly queues: AnyQueue[] = [];
  private readonly workers: AnyWorker[] = [];
  readonly kind: QueueBackendKind;
  /** The socket error behind a failed connect (ioredis rejects with a generic "Connection is closed"). */
  private lastRedisError?: Error;
  /** Set once the connection has been ready; then when it was lost, while it is. */
  private wasReady = false;
  private downSince?: number;

  constructor(private readonly options: QueueConnectionOptions) {
    this.kind = options.redisUrl ? 'redis' : 'postgres';
    if (options.redisUrl) {
      this.redis = new IORedis(options.redisUrl, {
        maxRetriesPerRequest: null,
        enableOfflineQueue: true,
        lazyConnect: true,
        connectTimeout: 5000,
      });
      // Connection errors surface through ping()/readiness; without a listener ioredis would print them.
      this.redis.on('error', (err: Error) => {
        this.lastRedisError = err;
      });
      this.redis.on('ready', () => {
        this.wasReady = true;
        if (this.downSince === undefined) return;
        const downMs = Date.now() - this.downSince;
        this.downSince = undefined;
        options.onOutage?.({ state: 'up', downMs });
      });
      this.redis.on('close', () => {
        if (!this.wasReady || this.downSince !== undefined) return;
        this.downSince = Date.now();
        const cause = this.lastRedisError as NodeJS.ErrnoException | undefined;
        options.onOutage?.({ state: 'down', reason: cause?.code ?? cause?.message ?? 'connection closed' });
      });
    }
  }

  /**
   * Whether the queue's datastore is connected now. While Redis is away, what would queue a job fails at once
   * instead of waiting in ioredis's offline queue (the database is the source of truth: the sweep queues it).
   */
  get available(): boolean {
    return !this.redis || this.redis.status === 'ready';
  }

  /**
   * The process's one Redis connection (undefined when the queue lives in the database), for the little that
   * shares Redis with the queue (the tool-call rate limit). Its commands wait in the offline queue while Redis
   * is away: check `available` first and bound each command.
   */
  get redisClient(): IORedis | undefined {
    return this.redis;
  }

  /** Connects and checks the datastore answers; throws QueueUnavailableError naming the cause. */
  async connect(timeoutMs = 5000): Promise<void> {
    if (!this.redis) return;
    const target = describeRedis(this.options.redisUrl!);
    try {
      await withTimeout(this.redis.connect(), timeoutMs, `no answer within ${timeoutMs} ms`);
      await withTimeout(this.redis.ping(), timeoutMs, `no answer within ${timeoutMs} ms`);
    } catch (err) {
      this.redis.disconnect();
      const cause = (this.lastRedisError ?? err) as NodeJS.ErrnoException;
      const reason = cause.code ?? cause.message;
      throw new QueueUnavailableError(`REDIS_URL: cannot reach Redis at ${target} (${reason})`);
    }
  }

  /** Readiness: true when the queue's datastore answers now. */
  async ping(timeoutMs = 2000): Promise<boolean> {
    try {
      if (this.redis) {
        if (!this.available) return false;
        await withTimeout(this.redis.ping(), timeoutMs, 'timeout');
      } else if (this.queues[0]) {
        await withTimeout(this.queues[0].getJobCounts('wait'), timeoutMs, 'timeout');
      }
      return true;
    } catch {
      return false;
    }
  }

  private classes(): { Queue: typeof RedisQueue; Worker: typeof RedisWorker } {
    if (this.redis) return { Queue: RedisQueue, Worker: RedisWorker };
    // The PostgreSQL backend's classes take a connection string instead of an ioredis client.
    return withBackend(createPostgresBackend) as unknown as { Queue: typeof RedisQueue; Worker: typeof RedisWorker };
  }

  private connection(): unknown {
    if (this.redis) return this.redis;
    return { connectionString: this.options.databaseUrl, schema: 'bullmq', migrate: true, max: 10 };
  }

  createQueue(name: string, opts: Partial<QueueOptions> = {}): AnyQueue {
    const { Queue } = this.classes();
    const queue = new Queue(name, {
      ...opts,
      connection: this.connection() as QueueOptions['connection'],
      prefix: this.options.prefix,
    });
    queue.on('error', () => undefined);
    this.queues.push(queue);
    return queue;
  }

  createWorker<T>(name: string, processor: Processor<T>, opts: Partial<WorkerOptions>): AnyWorker {
    const { Worker } = this.classes();
    const worker = new Worker(name, processor as Processor, {
      ...opts,
      connection: this.connection() as WorkerOptions['connection'],
      prefix: this.options.prefix,
    });
    this.workers.push(worker);
    return worker;
  }

  /** Closes workers first (letting running jobs finish within the bound), then queues and connections. */
  async close(workerGraceMs = 25_000): Promise<void> {
    await Promise.all(
      this.workers.map(async (w) => {
        const graceful = w.close(false);
        const forced = await Promise.race([graceful.then(() => false), sleep(workerGraceMs).then(() => true)]);
        if (forced) await w.close(true).catch(() => undefined);
      }),
    );
    await Promise.all(this.queues.map((q) => q.close().catch(() => undefined)));
    if (this.redis) this.redis.disconnect();
  }
}

export type { Job };

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
