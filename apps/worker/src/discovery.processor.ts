import { AppConfig, APP_CONFIG } from '@app/config';
import { QUEUE_CONNECTION, RUNTIME, Runtime } from '@app/platform';
import { Job, JobItem, JobName, QueueConnection, QueueName } from '@app/queue';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';

/** Takes discovery jobs off the queue; each job is one delegating call. */
@Injectable()
export class DiscoveryProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private worker?: ReturnType<QueueConnection['createWorker']>;

  constructor(
    @Inject(QUEUE_CONNECTION) private readonly queues: QueueConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = this.queues.createWorker<JobItem['data']>(QueueName.Discovery, (job) => this.process(job), {
      concurrency: this.config.discovery.concurrency,
      autorun: true,
    });
    this.worker.on('error', (err) => this.runtime.logger.warn({ err: err.message }, 'discovery worker error'));
  }

  async process(job: Job<JobItem['data']>): Promise<void> {
    const started = Date.now();
    this.runtime.logger.info({ jobId: job.id, name: job.name, attempt: job.attemptsMade + 1 }, 'job started');
    switch (job.name as JobName) {
      case JobName.Discover:
      case JobName.Sweep:
        break;
      default:
        this.runtime.logger.warn({ jobId: job.id, name: job.name }, 'unknown job name; dropped');
    }
    this.runtime.logger.info({ jobId: job.id, name: job.name, durationMs: Date.now() - started }, 'job finished');
  }

  async onModuleDestroy(): Promise<void> {
    if (!this.worker) return;
    const graceful = this.worker.close(false);
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.config.shutdownTimeoutMs).unref());
    if ((await Promise.race([graceful, timer])) === 'timeout') await this.worker.close(true);
  }
}
