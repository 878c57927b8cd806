import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ENQUEUE_TIMEOUT_MS, QUEUE_CONNECTION, QueueUnavailableNowError } from './discovery.producer';
import { JobItem, JobName, QueueName } from './jobs';
import { QueueConnection, withTimeout } from './queue-connection';

/** When the attempts of one delivery are made: how many, and the first retry's delay (doubling, up to an hour). */
export interface WebhookJobPolicy {
  attempts: number;
  backoffMs: number;
}
export const WEBHOOK_JOB_POLICY = Symbol('WEBHOOK_JOB_POLICY');

/** The longest wait between two attempts of one delivery. */
export const MAX_WEBHOOK_BACKOFF_MS = 3_600_000;

/** One attempt due now or later, by the delivery's id and the number of the attempt. */
export interface DueAttempt {
  deliveryId: string;
  attempt: number;
  at?: Date;
}

/**
 * The only code that adds jobs to the webhooks queue. A job is one attempt of one delivery, its id the
 * delivery's and the attempt's number (an attempt queued twice, by the dispatcher and by the sweep, runs once).
 * The retry schedule is decided here; the delivery row records it, so the API shows the next attempt's time and a
 * queue that lost its jobs gets them back from the rows.
 */
@Injectable()
export class WebhookProducer implements OnModuleDestroy {
  private queue?: ReturnType<QueueConnection['createQueue']>;

  constructor(
    @Inject(QUEUE_CONNECTION) private readonly queues: QueueConnection,
    @Inject(WEBHOOK_JOB_POLICY) readonly policy: WebhookJobPolicy,
  ) {}

  private get webhooksQueue() {
    this.queue ??= this.queues.createQueue(QueueName.Webhooks);
    return this.queue;
  }

  static jobId(deliveryId: string, attempt: number): string {
    return `webhook-delivery-${deliveryId}-${attempt}`;
  }

  /** How long after failed attempt `attempt` (1-based) the next one is made: backoffMs doubling, at most an hour. */
  retryDelayMs(attempt: number): number {
    return Math.min(MAX_WEBHOOK_BACKOFF_MS, this.policy.backoffMs * 2 ** Math.max(0, attempt - 1));
  }

  /** Queues attempts. Never carries a secret or the payload: the worker reads both from the database. */
  async schedule(due: DueAttempt[]): Promise<void> {
    if (due.length === 0) return;
    if (!this.queues.available) throw new QueueUnavailableNowError('the queue is not connected');
    const now = Date.now();
    const jobs = due.map((d) => {
      const job: JobItem = { name: JobName.DeliverWebhook, data: { deliveryId: d.deliveryId } };
      const delay = d.at ? d.at.getTime() - now : 0;
      return {
        ...job,
        opts: {
          jobId: WebhookProducer.jobId(d.deliveryId, d.attempt),
          // Only the queue's own failures are retried by the queue (the database away); a receiver's are the row's.
          attempts: 3,
          backoff: { type: 'exponential' as const, delay: 1000 },
          delay: delay > 0 ? delay : undefined,
          removeOnComplete: true,
          removeOnFail: true,
        },
      };
    });
    const adding = this.webhooksQueue.addBulk(jobs);
    adding.catch(() => undefined);
    await withTimeout(adding, ENQUEUE_TIMEOUT_MS, `the queue did not answer within ${ENQUEUE_TIMEOUT_MS} ms`).catch((err: Error) => {
      throw new QueueUnavailableNowError(err.message);
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
  }
}
