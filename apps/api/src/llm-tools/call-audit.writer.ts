import { AuditEventInput, AuditRepository } from '@app/database';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';

/** Records are written at most this long after the call they describe. */
const FLUSH_AFTER_MS = 100;
const MAX_BATCH = 500;

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
        await this.audit.recordMany(batch);
      } catch (err) {
        this.logger.error({ err: (err as Error).message, events: batch.length }, 'tool call audit records could not be written');
      }
    });
    return this.writing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
  }
}
