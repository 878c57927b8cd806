import { WebhookDeliveryRepository } from '@app/database';
import { WebhookProducer } from '@app/queue';
import { Injectable, Logger } from '@nestjs/common';

/** How often the outbox of server events is looked at. */
export const DISPATCH_INTERVAL_MS = 500;
/** Events taken per statement. */
export const DISPATCH_BATCH = 200;
/** How often deliveries whose job was lost are looked for, and how overdue one must be. */
export const SWEEP_INTERVAL_MS = 5000;
export const OVERDUE_GRACE_MS = 10_000;
/** Finished deliveries are kept this long. */
export const DELIVERY_RETENTION_DAYS = 30;

/**
 * Turns new server events into deliveries (the outbox, in the worker role), queues their first attempts, and
 * sweeps: a pending delivery overdue with nobody on it lost its job (the queue was away or lost its data), and
 * is queued again from its row. Any number of workers run this at once: each event is taken by one.
 */
@Injectable()
export class WebhookDispatcher {
  private readonly logger = new Logger('WebhookDispatcher');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private lastSweep = 0;
  private lastPrune = 0;
  private stopped = true;
  /** Set while looks fail (the database or the queue away): said once as it begins and once as it ends. */
  private failingSince?: number;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly producer: WebhookProducer,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule(DISPATCH_INTERVAL_MS);
      });
    }, ms);
    this.timer.unref();
  }

  /** One look: the outbox drained batch by batch, then (now and then) the sweep and the pruning. */
  async tick(): Promise<void> {
    try {
      for (;;) {
        const { taken, deliveries } = await this.deliveries.dispatch(DISPATCH_BATCH);
        if (deliveries.length > 0) {
          this.logger.debug({ events: taken, deliveries: deliveries.length }, 'webhook deliveries made');
          await this.producer.schedule(deliveries.map((deliveryId) => ({ deliveryId, attempt: 1 }))).catch((err: Error) => {
            this.logger.warn({ deliveries: deliveries.length, err: err.message }, 'webhook deliveries could not be queued; the sweep will');
          });
        }
        if (taken < DISPATCH_BATCH || this.stopped) break;
      }
      const now = Date.now();
      if (now - this.lastSweep >= SWEEP_INTERVAL_MS) {
        this.lastSweep = now;
        const due = await this.deliveries.overdue(OVERDUE_GRACE_MS, 500);
        if (due.length > 0) {
          this.logger.log({ deliveries: due.length }, 'overdue webhook deliveries queued again');
          await this.producer.schedule(due.map((d) => ({ deliveryId: d.deliveryId, attempt: d.attempt })));
        }
      }
      if (now - this.lastPrune >= 3_600_000) {
        this.lastPrune = now;
        await this.deliveries.prune(DELIVERY_RETENTION_DAYS);
      }
      if (this.failingSince !== undefined) {
        this.logger.log({ downMs: Date.now() - this.failingSince }, 'webhook dispatch works again');
        this.failingSince = undefined;
      }
    } catch (err) {
      if (this.failingSince !== undefined) return;
      this.failingSince = Date.now();
      this.logger.warn({ err: (err as Error).message }, 'webhook dispatch failed; trying again every half second (said again once it works)');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
