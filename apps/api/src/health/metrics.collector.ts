import { HealthRepository } from '@app/database';
import { Metrics } from '@app/observability';
import { METRICS, QUEUE_CONNECTION } from '@app/platform';
import { QueueConnection, QueueName, withTimeout } from '@app/queue';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';

/** Fills the gauges that are read from the database and the queue at scrape time. */
@Injectable()
export class MetricsCollector implements OnModuleDestroy {
  private queue?: ReturnType<QueueConnection['createQueue']>;

  constructor(
    @Inject(METRICS) private readonly metrics: Metrics,
    private readonly database: HealthRepository,
    @Inject(QUEUE_CONNECTION) private readonly queues: QueueConnection,
  ) {}

  async refresh(): Promise<void> {
    const counts = await this.database.serverCountsByStatus();
    this.metrics.serversByStatus.reset();
    for (const [status, n] of Object.entries(counts)) this.metrics.serversByStatus.set({ status }, n);
    try {
      // A scrape never waits on a queue that is away: the gauges keep their last values.
      if (!this.queues.available) return;
      this.queue ??= this.queues.createQueue(QueueName.Discovery);
      const counts = await withTimeout(this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized'), 1000, 'timeout');
      for (const [state, n] of Object.entries(counts)) this.metrics.queueDepth.set({ state }, n);
    } catch {
      // The queue being down shows on /health/ready; metrics keep the last values.
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
  }
}
