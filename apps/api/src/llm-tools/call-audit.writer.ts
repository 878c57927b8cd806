import { AuditEventInput, AuditRepository, isDatabaseUnavailable } from '@app/database';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';

/** Records are written at most this long after the call they describe. */
const FLUSH_AFTER_MS = 100;
const MAX_BATCH = 500;
/** While PostgreSQL is away, records wait (and are tried again every this long), up to this many. */
const RETRY_MS = 1000;
const MAX_WAITING = 100_000;

/**
 * Writes the audit records of tool calls in batches (one INSERT for many calls), off the call's path: a
 * record per call written on its own would cost each call a database round trip. Each record keeps the
 * time of its call. Flushed on shutdown.
 */
@Injectable()
export class CallAuditWriter implements OnModuleDestroy {
  private readonly logger = new Logger(CallAuditWriter.name);
  private pending: AuditEventInput[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly audit: AuditRepository) {}

  add(event: AuditEventInput): void {
    this.pending.push({ ...event, at: event.at ?? new Date() });
    if (this.pending.length >= MAX_BATCH) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
      this.timer.unref();
    }
  }

  /** Writes what is pending now, after the writes already under way; resolves when all are done. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.writing.then(async () => {
      if (batch.length === 0) return;
      try {
        // After an outage many may be waiting: one statement per MAX_BATCH of them.
        while (batch.length > 0) {
          await this.audit.recordMany(batch.slice(0, MAX_BATCH));
          batch.splice(0, MAX_BATCH);
        }
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          // Kept for when the database is back (the outage itself is logged once elsewhere); the oldest go past the bound.
          this.pending = [...batch, ...this.pending];
          const over = this.pending.length - MAX_WAITING;
          if (over > 0) {
            this.pending.splice(0, over);
            this.logger.error({ events: over }, 'tool call audit records dropped: too many waiting for the database');
          }
          this.timer ??= setTimeout(() => void this.flush(), RETRY_MS);
          this.timer.unref();
          return;
        }
        this.logger.error({ err: (err as Error).message, events: batch.length }, 'tool call audit records could not be written');
      }
    });
    return this.writing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
  }
}
