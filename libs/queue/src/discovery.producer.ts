import { Injectable, Inject, OnModuleDestroy } from '@nestjs/common';
import { DiscoveryTarget, DiscoveryTrigger, JobItem, JobName, QueueName } from './jobs';
import { QueueConnection, withTimeout } from './queue-connection';

/**
 * The longest a request waits to queue a job. The row it committed already says what is due, so a queue that
 * does not answer by then is left to the workers' sweep, which queues what the queue missed.
 */
export const ENQUEUE_TIMEOUT_MS = 2000;

/** The queue could not take a job now (its datastore is away, or did not answer within ENQUEUE_TIMEOUT_MS). */
export class QueueUnavailableNowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableNowError';
  }
}

export const QUEUE_CONNECTION = Symbol('QUEUE_CONNECTION');

/** Retries and backoff of one discovery, from configuration. */
export interface DiscoveryJobPolicy {
  attempts: number;
  /** First retry delay; doubles each attempt, with jitter. */
  backoffMs: number;
}
export const DISCOVERY_JOB_POLICY = Symbol('DISCOVERY_JOB_POLICY');

/** Requests made by a caller of the API: a job they join is relabelled with their trigger. */
const RELABELLING: ReadonlySet<DiscoveryTrigger> = new Set(['updated', 'manual']);

/**
 * The only code that adds jobs to the discovery queue: it decides job ids
 * (one pending discovery per server: a second request while one is queued is
 * coalesced into it), attempts and backoff.
 */
@Injectable()
export class DiscoveryProducer implements OnModuleDestroy {
  private queue?: ReturnType<QueueConnection['createQueue']>;

  constructor(
    @Inject(QUEUE_CONNECTION) private readonly queues: QueueConnection,
    @Inject(DISCOVERY_JOB_POLICY) private readonly policy: DiscoveryJobPolicy,
  ) {}

  private get discoveryQueue() {
    this.queue ??= this.queues.createQueue(QueueName.Discovery);
    return this.queue;
  }

  static jobId(serverId: string): string {
    return `discover-${serverId}`;
  }

  /** The one repeatable sweep of the discovery queue, shared by every worker. */
  static readonly sweepSchedulerId = 'discovery-sweep';

  /** Queues a discovery of one server. Never carries a secret: the worker reads everything else from the database. */
  async request(target: DiscoveryTarget, trigger: DiscoveryTrigger, delayMs = 0): Promise<void> {
    const job = this.discoverJob(target, trigger, delayMs);
    await this.bounded(async () => {
      await this.discoveryQueue.add(job.name, job.data, job.opts);
      if (!RELABELLING.has(trigger)) return;
      // A change or an explicit request joins the server's pending or running job when there is one (one job per
      // server): the run it causes is recorded with this request's trigger, not the one that queued the job. The
      // platform's own requests (the sweep, the schedule, a change notification) leave the label as it is.
      const pending = await this.discoveryQueue.getJob(job.opts.jobId);
      if (pending && pending.data.trigger !== trigger) await pending.updateData({ ...pending.data, trigger }).catch(() => undefined);
    });
  }

  /** Queues discoveries of several servers in one round trip (a registration of many). */
  async requestMany(targets: DiscoveryTarget[], trigger: DiscoveryTrigger): Promise<void> {
    if (targets.length === 0) return;
    await this.bounded(() => this.discoveryQueue.addBulk(targets.map((t) => this.discoverJob(t, trigger, 0))));
  }

  /** Runs a queue operation within ENQUEUE_TIMEOUT_MS, or fails at once while the queue's datastore is away. */
  private async bounded<T>(operation: () => Promise<T>): Promise<T> {
    if (!this.queues.available) throw new QueueUnavailableNowError('the queue is not connected');
    const running = operation();
    // Finishing late is harmless (job ids dedupe); failing late must not be an unhandled rejection.
    running.catch(() => undefined);
    return withTimeout(running, ENQUEUE_TIMEOUT_MS, `the queue did not answer within ${ENQUEUE_TIMEOUT_MS} ms`).catch((err: Error) => {
      throw err instanceof QueueUnavailableNowError ? err : new QueueUnavailableNowError(err.message);
    });
  }

  private discoverJob(target: DiscoveryTarget, trigger: DiscoveryTrigger, delayMs: number) {
    const serverId = typeof target === 'string' ? target : target.id;
    const data = typeof target === 'string' ? { serverId, trigger } : { serverId, trigger, tenantId: target.tenantId };
    const job: JobItem = { name: JobName.Discover, data };
    return {
      ...job,
      opts: {
        jobId: DiscoveryProducer.jobId(serverId),
        attempts: this.policy.attempts,
        backoff: { type: 'exponential' as const, delay: this.policy.backoffMs, jitter: 0.5 },
        delay: delayMs > 0 ? delayMs : undefined,
        removeOnComplete: true,
        removeOnFail: true,
      },
    };
  }

  /**
   * Makes sure the periodic sweep is scheduled (every worker calls this at
   * start and then periodically, so a queue that lost its data gets it back).
   * Returns false when it was missing and had to be created.
   */
  async ensureSweepSchedule(everyMs: number): Promise<boolean> {
    const existing = await this.discoveryQueue.getJobScheduler(DiscoveryProducer.sweepSchedulerId);
    if (existing && Number(existing.every) === everyMs) return true;
    const job: JobItem = { name: JobName.Sweep, data: {} };
    await this.discoveryQueue.upsertJobScheduler(
      DiscoveryProducer.sweepSchedulerId,
      { every: everyMs },
      { name: job.name, data: job.data, opts: { removeOnComplete: true, removeOnFail: true } },
    );
    return false;
  }

  static catalogSyncSchedulerId(sourceId: string): string {
    return `catalog-sync-${sourceId}`;
  }

  /**
   * Syncs a catalog source now and then every `everyMs` (a scheduler with `every` runs its first job at once) (one repeatable job per source). The payload is the
   * source id only; the worker reads the rest from the database.
   */
  async scheduleCatalogSync(sourceId: string, everyMs: number): Promise<void> {
    const job: JobItem = { name: JobName.CatalogSync, data: { sourceId } };
    await this.bounded(() =>
      this.discoveryQueue.upsertJobScheduler(
        DiscoveryProducer.catalogSyncSchedulerId(sourceId),
        { every: everyMs },
        { name: job.name, data: job.data, opts: { removeOnComplete: true, removeOnFail: true } },
      ),
    );
  }

  /**
   * One sync of a catalog source now, beside its schedule (the admin's "sync now"): one pending per source, so
   * asking again while it waits joins it.
   */
  async requestCatalogSync(sourceId: string): Promise<void> {
    const job: JobItem = { name: JobName.CatalogSync, data: { sourceId } };
    await this.bounded(() => this.discoveryQueue.add(job.name, job.data, { jobId: `catalog-sync-now-${sourceId}`, removeOnComplete: true, removeOnFail: true }));
  }

  async unscheduleCatalogSync(sourceId: string): Promise<void> {
    await this.bounded(() => this.discoveryQueue.removeJobScheduler(DiscoveryProducer.catalogSyncSchedulerId(sourceId)));
  }

  /** Jobs of the discovery queue by state, for tests and diagnostics. */
  async counts(): Promise<Record<string, number>> {
    return this.discoveryQueue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized', 'completed');
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
  }
}
