import { Inject, Injectable, Logger, Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { DatabaseAvailability } from './database-availability';
import { NotificationListener } from './notification-listener';
import { ChangeFeedRepository, ChangeLogRow, VirtualServerChangeLogRow } from './repositories/change-feed.repository';

/** The channel the servers and tools triggers notify on when a transaction that changed them commits. */
export const CHANGE_FEED_CHANNEL = 'server_changes';

/** One committed change, as the feed delivers it: one per server in a delivery. */
export interface FeedChange {
  serverId: string;
  /** The server's owner (null: the platform's). */
  tenantId: string | null;
  /**
   * Only the server's discovery row moved (lease, schedule, request time, why an attempt is tried again): what the
   * server is and offers did not. Told by the table written, not by the columns.
   */
  bookkeeping: boolean;
}

/** One committed change to a virtual server's own definition (made, changed, its members, deleted): one per virtual server in a delivery. */
export interface VirtualServerFeedChange {
  virtualServerId: string;
  /** Its owner (null: the platform's). */
  tenantId: string | null;
}

/**
 * What a reader of the feed is told. A handler that returns a promise holds the feed's next delivery until it
 * settles: keep them short (start long work and return).
 */
export interface ChangeFeedSubscriber {
  /**
   * Changes committed since the last delivery (a server may come again in a later one: handle them idempotently).
   * A handler that throws or rejects gets the same changes again with the next read.
   */
  changes?(changes: FeedChange[]): void | Promise<void>;
  /** Virtual servers changed since the last delivery, as `changes` is told of servers (and held, and repeated, alike). */
  virtualServers?(changes: VirtualServerFeedChange[]): void | Promise<void>;
  /**
   * Changes may have been missed (the feed starts without a database, or was not read for longer than the log
   * keeps changes): whatever was derived from earlier reads must be read again.
   */
  gap?(): void;
  /** Whether changes arrive within milliseconds of their commit now (listening, and the last read succeeded). */
  live?(live: boolean): void;
}

/** Where the feed listens, and how a database outage is logged once rather than at every read. */
export interface ChangeFeedOptions {
  connectionString: string;
  availability?: DatabaseAvailability;
  /** How often the log is read while listening anyway (ms); while not listening it is read every second. */
  idleReadMs?: number;
  /**
   * A notification that comes within this long (ms) of the last read's start waits until this long has passed, so
   * that a burst of commits (a worker recording many discoveries) costs a read per this long, not one per commit.
   * A change after a quiet spell is read at once. Default CHANGE_FEED_GATHER_MS.
   */
  gatherMs?: number;
}

export const CHANGE_FEED_OPTIONS = Symbol('CHANGE_FEED_OPTIONS');

/** While not listening, the log is read this often: a change arrives within about this. */
export const CHANGE_FEED_POLL_MS = 1000;
const IDLE_READ_MS = 10_000;
/** Notifications within this long of a read are answered by one read at its end (see ChangeFeedOptions.gatherMs). */
export const CHANGE_FEED_GATHER_MS = 25;
/** Changes are kept this long; a reader that could not read the log for half of it reports a gap. */
const RETENTION_MS = 60 * 60_000;
const GAP_AFTER_MS = RETENTION_MS / 2;
const PRUNE_EVERY_MS = 60_000;

/**
 * The registry's change feed: every committed change to a server or its tools, and to a virtual server's own
 * definition, delivered to each subscriber in this process. The triggers on `servers` and `tools` (and on
 * `virtual_servers` and their members) append each change to the `server_changes` log in the
 * writer's own transaction and notify the channel "server_changes"; the feed listens on a connection of its own
 * and reads the log when woken, so that changes arrive within milliseconds of their commit, and reads it every
 * second while it cannot listen. The log, not the notification, is the record: nothing is missed while the
 * listening connection is down, a change whose transaction began before a read and committed after it included.
 * On the embedded database too (its one session's notifications are handed to the connections that listen).
 */
@Injectable()
export class ChangeFeed implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ChangeFeed.name);
  private readonly subscribers = new Set<ChangeFeedSubscriber>();
  private listener?: NotificationListener;
  /** The oldest transaction that may still add changes not delivered; undefined until known (a gap follows). */
  private xmin?: bigint;
  /** Change ids the last read returned: the only ones a later read can return again. */
  private seen = new Set<bigint>();
  private lastReadAt = 0;
  /** When the last read of the log started (ms), and the wake-up held until CHANGE_FEED_GATHER_MS after it. */
  private lastReadStartedAt = 0;
  private gathering?: NodeJS.Timeout;
  private lastPruneAt = Date.now();
  private readFailed = false;
  /** The last read did not deliver everything (the log or a reader failed): the next comes a second later. */
  private behind = false;
  private reading?: Promise<void>;
  private again = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private wasLive = false;

  constructor(
    private readonly log: ChangeFeedRepository,
    @Inject(CHANGE_FEED_OPTIONS) private readonly options: ChangeFeedOptions,
  ) {}

  /**
   * The feed's position is taken before any subscriber's first read of the registry (their onApplicationBootstrap
   * runs after this): a change committed after that read is delivered to them.
   */
  async onModuleInit(): Promise<void> {
    try {
      this.xmin = await this.log.currentXmin();
      this.lastReadAt = Date.now();
    } catch (err) {
      this.failed(err as Error, 'the change feed could not start; it reports a gap when the database answers');
    }
    this.listener = new NotificationListener(this.options.connectionString, CHANGE_FEED_CHANNEL, {
      notified: () => this.woken(),
      reset: (listening) => {
        this.updateLive();
        // Listening again: whatever committed meanwhile is in the log.
        if (listening) void this.read().catch(() => undefined);
      },
      error: (err) => this.failed(err, 'listening for changes failed; the change log is read every second until it listens again'),
    });
    await this.listener.start();
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.gathering);
    await this.listener?.stop();
    this.updateLive();
  }

  /** Starts delivering to `subscriber`; returns what stops it. */
  subscribe(subscriber: ChangeFeedSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Whether changes arrive within milliseconds of their commit now (listening, and the last read succeeded). */
  get live(): boolean {
    return !this.stopped && this.listener?.listening === true && !this.readFailed;
  }

  /**
   * Reads the log and delivers what it has not delivered yet; resolves when every change committed before the
   * call has been delivered (or rejects when the read failed). The feed reads by itself; tests call it to skip a wait.
   */
  read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    const run = (async () => {
      try {
        do {
          this.again = false;
          this.behind = true;
          await this.readOnce();
          this.behind = false;
        } while (this.again && !this.stopped);
      } finally {
        this.reading = undefined;
      }
    })();
    this.reading = run;
    return run;
  }

  /**
   * A notification: the log is read now, or, within the gather time of the last read's start, once at its end for
   * every notification meanwhile (what commits in between is in the log that read sees).
   */
  private woken(): void {
    if (this.gathering || this.stopped) return;
    const wait = this.lastReadStartedAt + (this.options.gatherMs ?? CHANGE_FEED_GATHER_MS) - Date.now();
    if (wait <= 0) {
      void this.read().catch(() => undefined);
      return;
    }
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      void this.read().catch(() => undefined);
    }, wait);
    this.gathering.unref();
  }

  private async readOnce(): Promise<void> {
    this.lastReadStartedAt = Date.now();
    let page;
    try {
      if (this.xmin === undefined || Date.now() - this.lastReadAt > GAP_AFTER_MS) {
        this.xmin = await this.log.currentXmin();
        this.seen = new Set();
        this.lastReadAt = Date.now();
        this.succeeded();
        this.logger.warn('the change log was not read for long (or could not be at start); readers load everything again');
        for (const s of [...this.subscribers]) s.gap?.();
        return;
      }
      page = await this.log.changesSince(this.xmin);
    } catch (err) {
      this.readFailed = true;
      this.updateLive();
      this.failed(err as Error, 'reading the change log failed; trying again');
      throw err;
    }
    this.succeeded();
    const fresh = page.changes.filter((c) => !this.seen.has(c.id));
    const freshVirtual = page.virtualServerChanges.filter((c) => !this.seen.has(c.id));
    if (fresh.length > 0 || freshVirtual.length > 0) await this.deliver(byServer(fresh), byVirtualServer(freshVirtual));
    this.seen = new Set([...page.changes, ...page.virtualServerChanges].map((c) => c.id));
    this.xmin = page.xmin;
    this.lastReadAt = Date.now();
    if (Date.now() - this.lastPruneAt > PRUNE_EVERY_MS) {
      this.lastPruneAt = Date.now();
      await this.log.prune(RETENTION_MS).catch((err: Error) => this.logger.warn({ err: err.message }, 'pruning the change log failed'));
    }
  }

  /** Hands the changes to every subscriber at once; if one fails, the read is not counted and they come again. */
  private async deliver(changes: FeedChange[], virtualServers: VirtualServerFeedChange[]): Promise<void> {
    const results = await Promise.allSettled(
      [...this.subscribers].map(async (s) => {
        await Promise.all([changes.length > 0 ? s.changes?.(changes) : undefined, virtualServers.length > 0 ? s.virtualServers?.(virtualServers) : undefined]);
      }),
    );
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      this.logger.warn({ err: (failure.reason as Error)?.message }, 'a reader of the change feed failed; its changes come again');
      throw failure.reason;
    }
  }

  private succeeded(): void {
    this.options.availability?.succeeded();
    if (this.readFailed) {
      this.readFailed = false;
      this.updateLive();
    }
  }

  private updateLive(): void {
    const live = this.live;
    if (live === this.wasLive) return;
    this.wasLive = live;
    for (const s of [...this.subscribers]) s.live?.(live);
  }

  private failed(err: Error, message: string): void {
    // While PostgreSQL is away the outage is logged once (DatabaseAvailability), not at every read here.
    if (!this.options.availability?.failed(err)) this.logger.warn({ err: err.message }, message);
  }

  private schedule(): void {
    if (this.stopped) return;
    const wait = this.live && !this.behind ? (this.options.idleReadMs ?? IDLE_READ_MS) : CHANGE_FEED_POLL_MS;
    this.timer = setTimeout(() => {
      this.read()
        .catch(() => undefined)
        .finally(() => this.schedule());
    }, wait);
    this.timer.unref();
  }
}

/** One change per server: a server's changes are bookkeeping only if each of them was. */
function byServer(rows: ChangeLogRow[]): FeedChange[] {
  const out = new Map<string, FeedChange>();
  for (const r of rows) {
    const known = out.get(r.serverId);
    if (known) known.bookkeeping &&= r.bookkeeping;
    else out.set(r.serverId, { serverId: r.serverId, tenantId: r.tenantId, bookkeeping: r.bookkeeping });
  }
  return [...out.values()];
}

/** One change per virtual server. */
function byVirtualServer(rows: VirtualServerChangeLogRow[]): VirtualServerFeedChange[] {
  const out = new Map<string, VirtualServerFeedChange>();
  for (const r of rows) if (!out.has(r.virtualServerId)) out.set(r.virtualServerId, { virtualServerId: r.virtualServerId, tenantId: r.tenantId });
  return [...out.values()];
}

/** The change feed, for the processes that read it (the API); CHANGE_FEED_OPTIONS comes from the platform module. */
@Module({
  providers: [ChangeFeedRepository, ChangeFeed],
  exports: [ChangeFeed],
})
export class ChangeFeedModule {}
