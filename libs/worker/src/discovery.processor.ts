import { DiscoveryScheduler, DiscoveryService, shareRetryMs, TenantShare } from '@app/discovery';
import { ServerRepository } from '@app/database';
import { StdioWorkspaces } from '@app/mcp';
import { QUEUE_CONNECTION, RUNTIME, Runtime } from '@app/platform';
import { CatalogSyncService } from '@app/catalog';
import { CatalogSyncJobData, DiscoverJobData, DiscoveryProducer, Job, JobItem, JobName, QueueConnection, QueueName } from '@app/queue';
import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DelayedError, UnrecoverableError } from 'bullmq';

/**
 * How long a job's lock lasts without renewal. A worker renews it every half
 * of this; a worker that was killed lets it expire, and the stalled-job check
 * (every STALLED_INTERVAL_MS, on any worker) hands the job to another.
 */
export const LOCK_DURATION_MS = 10_000;
export const STALLED_INTERVAL_MS = 5_000;
/** How soon a job whose server another worker holds looks again. */
export const BUSY_RETRY_MS = 1_000;
/**
 * Jobs that ended within this long of each other are looked at again together: one statement for all of them
 * instead of one per job, and a request joined to an ending job is queued again within about this.
 */
export const ENDED_BATCH_MS = 10;

/** Takes discovery jobs off the queue; each job is one delegating call. */
@Injectable()
export class DiscoveryProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private worker?: ReturnType<QueueConnection['createWorker']>;
  private sweepTimer?: NodeJS.Timeout;
  private stopping = false;
  /** Jobs that recorded their last result, by job id: looked at again once the queue has ended them. */
  private readonly ending = new Map<string, { serverId: string; claimedAt: Date }>();
  /** Jobs the queue has ended, waiting for the next look at the database (see ended()). */
  private endedBatch: { serverId: string; since: Date }[] = [];
  private endedTimer?: NodeJS.Timeout;
  /** Each tenant's places among this worker's (DISCOVERY_TENANT_CONCURRENCY of DISCOVERY_CONCURRENCY). */
  private readonly share: TenantShare;
  /** Jobs put back because their tenant held its share, by job id: how many times in a row. */
  private readonly putBack = new Map<string, number>();

  constructor(
    @Inject(QUEUE_CONNECTION) private readonly queues: QueueConnection,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    private readonly discovery: DiscoveryService,
    private readonly scheduler: DiscoveryScheduler,
    private readonly producer: DiscoveryProducer,
    private readonly workspaces: StdioWorkspaces,
    private readonly servers: ServerRepository,
    private readonly catalogSync: CatalogSyncService,
  ) {
    this.share = new TenantShare(runtime.config.discovery.tenantConcurrency);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.worker = this.queues.createWorker<JobItem['data']>(QueueName.Discovery, (job, token) => this.process(job, token), {
      concurrency: this.runtime.config.discovery.concurrency,
      autorun: true,
      lockDuration: LOCK_DURATION_MS,
      stalledInterval: STALLED_INTERVAL_MS,
      maxStalledCount: 2,
    });
    this.worker.on('error', (err) => this.runtime.logger.warn({ err: err.message }, 'discovery worker error'));
    this.worker.on('completed', (job) => this.ended(job));
    this.worker.on('failed', (job) => job && this.ended(job));
    // Work missed while no worker ran (or while the queue was lost) is rebuilt from the database now.
    await this.keepSchedule(true);
    const every = this.scheduler.intervalMs;
    this.sweepTimer = setInterval(() => void this.keepSchedule(false), every);
    this.sweepTimer.unref();
  }

  /**
   * Makes sure the periodic sweep is scheduled; when it was missing (first
   * start, or the queue lost its data) a sweep runs at once. Every worker
   * checks at the sweep period, so a queue that lost everything has its
   * schedule back, and a sweep run, within one period.
   */
  private async keepSchedule(atStart: boolean): Promise<void> {
    if (this.stopping) return;
    try {
      const existed = await this.producer.ensureSweepSchedule(this.scheduler.intervalMs);
      if (atStart || !existed) await this.scheduler.sweep();
    } catch (err) {
      this.runtime.logger.warn({ err: (err as Error).message }, 'discovery sweep could not run; trying again at the next interval');
    }
    await this.pruneWorkspaces();
  }

  /** The stdio working directories of servers deleted since (through any process) go at the worker's start and every sweep period. */
  private async pruneWorkspaces(): Promise<void> {
    try {
      const removed = await this.workspaces.prune((ids) => this.servers.existingIds(ids));
      if (removed.length > 0) this.runtime.logger.info({ removed: removed.length }, 'stdio working directories of servers that no longer exist removed');
    } catch (err) {
      this.runtime.logger.warn({ err: (err as Error).message }, 'stdio working directories could not be pruned');
    }
  }

  /**
   * A discovery asked for after a job recorded its result but before the queue removed the job was taken by
   * the queue as a duplicate of it, and would wait for the sweep. Once the job is gone, the database is asked
   * (for every job that ended within ENDED_BATCH_MS, in one statement), and such a request gets a job of its own.
   */
  private ended(job: Job): void {
    const id = job.id ?? '';
    const last = this.ending.get(id);
    if (!last) return;
    this.ending.delete(id);
    this.endedBatch.push({ serverId: last.serverId, since: last.claimedAt });
    if (!this.stopping) this.endedTimer ??= setTimeout(() => void this.lookAgain(), ENDED_BATCH_MS);
  }

  private async lookAgain(): Promise<void> {
    const batch = this.endedBatch;
    this.endedBatch = [];
    clearTimeout(this.endedTimer);
    this.endedTimer = undefined;
    if (batch.length === 0) return;
    let asked: Set<string>;
    try {
      asked = await this.discovery.askedAgainAmong(batch);
    } catch (err) {
      this.runtime.logger.warn({ servers: batch.length, err: (err as Error).message }, 'discoveries asked for as their jobs ended could not be looked up; the sweep will queue them');
      return;
    }
    for (const serverId of asked) {
      try {
        this.runtime.logger.info({ serverId }, 'discovery asked for as its job ended; queued again');
        await this.producer.request(serverId, 'recovered');
      } catch (err) {
        this.runtime.logger.warn({ serverId, err: (err as Error).message }, 'a discovery asked for as its job ended could not be queued; the sweep will');
      }
    }
  }

  async process(job: Job<JobItem['data']>, token?: string): Promise<void> {
    const started = Date.now();
    switch (job.name as JobName) {
      case JobName.Discover:
        return this.discover(job as Job<DiscoverJobData>, token, started);
      case JobName.Sweep: {
        const report = await this.scheduler.sweep();
        this.runtime.logger.debug({ jobId: job.id, ...report, durationMs: Date.now() - started }, 'sweep finished');
        return;
      }
      case JobName.CatalogSync:
        // A failed read is recorded on the source (a known outcome): not retried before the next interval.
        await this.catalogSync.sync((job.data as CatalogSyncJobData).sourceId);
        return;
      default:
        this.runtime.logger.warn({ jobId: job.id, name: job.name }, 'unknown job name; dropped');
    }
  }

  /**
   * A tenant's discoveries take at most its share of this worker's places: a job of a tenant that holds its
   * share now is put back for a moment (longer each time, up to SHARE_RETRY_MAX_MS) before its server is claimed,
   * and the place goes to the next job, so that a tenant whose servers hang cannot keep another's waiting.
   */
  private async discover(job: Job<DiscoverJobData>, token: string | undefined, started: number): Promise<void> {
    const tenantId = job.data.tenantId !== undefined ? job.data.tenantId : await this.discovery.tenantOf(job.data.serverId);
    const id = job.id ?? '';
    if (tenantId !== null && !this.share.tryEnter(tenantId)) {
      const times = (this.putBack.get(id) ?? 0) + 1;
      if (this.putBack.size >= 100_000) this.putBack.clear();
      this.putBack.set(id, times);
      this.runtime.logger.debug({ jobId: id, serverId: job.data.serverId, tenantId, times }, "discovery put back: its tenant holds its share of this worker's places");
      await job.moveToDelayed(Date.now() + shareRetryMs(times), token);
      throw new DelayedError();
    }
    this.putBack.delete(id);
    try {
      await this.discoverNow(job, token, started);
    } finally {
      if (tenantId !== null) this.share.leave(tenantId);
    }
  }

  private async discoverNow(job: Job<DiscoverJobData>, token: string | undefined, started: number): Promise<void> {
    const { serverId, trigger } = job.data;
    const attempt = job.attemptsMade + 1;
    const maxAttempts = job.opts.attempts ?? 1;
    const log = { jobId: job.id, serverId, trigger, attempt };
    this.runtime.logger.info(log, 'discovery started');
    const outcome = await this.discovery.discover({ serverId, trigger, attempt, maxAttempts });
    const durationMs = Date.now() - started;
    if ((outcome.kind === 'succeeded' || outcome.kind === 'failed') && outcome.claimedAt && job.id) {
      this.ending.set(job.id, { serverId, claimedAt: outcome.claimedAt });
    }
    switch (outcome.kind) {
      case 'succeeded':
        this.runtime.logger.info({ ...log, durationMs, tools: outcome.toolCount, ...outcome.changes }, 'discovery succeeded');
        return;
      case 'skipped':
      case 'lost':
      case 'cancelled':
        this.runtime.logger.info({ ...log, durationMs, outcome: outcome.kind }, 'discovery not run to the end');
        return;
      case 'superseded':
        // Asked for again while it ran (its registration changed): the same job runs once more, now.
        this.runtime.logger.info({ ...log, durationMs, outcome: outcome.kind }, 'discovery superseded; running it again');
        await job.moveToDelayed(Date.now() + 100, token);
        throw new DelayedError();
      case 'busy':
        // Another worker holds this server: look again shortly (it gives the lease back when it is done,
        // or the lease runs out if that worker died).
        await job.moveToDelayed(Math.min(outcome.until.getTime() + 250, Date.now() + BUSY_RETRY_MS), token);
        throw new DelayedError();
      case 'failed':
        this.runtime.logger.info({ ...log, durationMs, final: outcome.final, code: outcome.failure.code, reason: outcome.reason }, 'discovery failed');
        // Not worth another attempt (a permanent failure, or the last attempt): the job ends here.
        if (outcome.final) throw new UnrecoverableError(outcome.reason);
        throw new Error(outcome.reason);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    if (!this.worker) return;
    const graceful = this.worker.close(false);
    // Within what is left of the process's one bound (tool calls in flight finish within the same one).
    this.runtime.shutdown.begin();
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.runtime.shutdown.remainingMs()).unref());
    if ((await Promise.race([graceful, timer])) === 'timeout') await this.worker.close(true);
    // The jobs that ended last, the ones the close waited for among them, are looked at now rather than at the sweep.
    await this.lookAgain();
  }
}
