import { RUNTIME, Runtime } from '@app/platform';
import { DeliverWebhookJobData, Job, QUEUE_CONNECTION, QueueConnection, QueueName } from '@app/queue';
import { WebhookDeliveryService, WebhookDispatcher } from '@app/webhooks';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DelayedError } from 'bullmq';
import { LOCK_DURATION_MS, STALLED_INTERVAL_MS } from './discovery.processor';

/** Deliveries sent at once by one worker: receivers are slow far more often than they are many. */
export const WEBHOOK_CONCURRENCY = 16;

/** Takes webhook delivery attempts off their queue, and runs the dispatcher that makes them. */
@Injectable()
export class WebhookProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private worker?: ReturnType<QueueConnection['createWorker']>;

  constructor(
    @Inject(QUEUE_CONNECTION) private readonly queues: QueueConnection,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    private readonly deliveries: WebhookDeliveryService,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = this.queues.createWorker<DeliverWebhookJobData>(QueueName.Webhooks, (job, token) => this.process(job, token), {
      concurrency: WEBHOOK_CONCURRENCY,
      autorun: true,
      lockDuration: LOCK_DURATION_MS,
      stalledInterval: STALLED_INTERVAL_MS,
      maxStalledCount: 2,
    });
    this.worker.on('error', (err) => this.runtime.logger.warn({ err: err.message }, 'webhook worker error'));
    this.dispatcher.start();
  }

  async process(job: Job<DeliverWebhookJobData>, token?: string): Promise<void> {
    const report = await this.deliveries.attempt(job.data.deliveryId);
    if (report.kind === 'busy') {
      // A worker is sending it, or stopped while it did: look again when its lease runs out.
      await job.moveToDelayed(report.until.getTime() + 250, token);
      throw new DelayedError();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.dispatcher.stop();
    if (!this.worker) return;
    this.runtime.shutdown.begin();
    const graceful = this.worker.close(false);
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.runtime.shutdown.remainingMs()).unref());
    if ((await Promise.race([graceful, timer])) === 'timeout') await this.worker.close(true);
  }
}
