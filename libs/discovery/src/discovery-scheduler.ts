import { DiscoveryRunRepository, DiscoveryStateRepository } from '@app/database';
import { RUNTIME, Runtime } from '@app/platform';
import { DiscoveryProducer } from '@app/queue';
import { Inject, Injectable } from '@nestjs/common';
import { nextDiscoveryAt, ORPHANED_RUN } from './discovery.service';
import { ToolChangeWatcher } from './tool-change-watcher';

/** How often the sweep runs: a tenth of the re-discovery interval, between 5 s and 60 s. */
export function sweepIntervalMs(intervalSeconds: number): number {
  return Math.min(60_000, Math.max(5_000, intervalSeconds * 100));
}

export interface SweepReport {
  /** Servers whose worker stopped mid-discovery, queued again. */
  recovered: number;
  /** Servers whose worker stopped on every attempt: now ERROR. */
  abandoned: number;
  disconnected: number;
  /** Servers due for their periodic re-discovery, queued. */
  scheduled: number;
  /** DISCOVERING servers (re)queued in case their job was lost. */
  requeued: number;
}

const BATCH = 500;

/**
 * PostgreSQL is the source of truth for what must be discovered and when;
 * the queue only carries the work. A sweep (on every worker's start, then
 * periodically) puts the queue back in line with the database:
 * - a lease whose worker died is taken back: its run is closed as failed and
 *   the server queued again, or put in ERROR once its attempts are spent, so
 *   no server stays DISCOVERING past timeout × attempts plus a margin;
 * - enabled servers whose next discovery is due are queued;
 * - every DISCOVERING server no worker holds is queued (a no-op when its job
 *   exists: job ids dedupe), which rebuilds everything if the queue lost it;
 * - disabled servers become DISCONNECTED.
 */
@Injectable()
export class DiscoveryScheduler {
  constructor(
    @Inject(RUNTIME) private readonly runtime: Runtime,
    private readonly state: DiscoveryStateRepository,
    private readonly runs: DiscoveryRunRepository,
    private readonly producer: DiscoveryProducer,
    private readonly watcher: ToolChangeWatcher,
  ) {}

  get intervalMs(): number {
    return sweepIntervalMs(this.runtime.config.discovery.intervalSeconds);
  }

  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { recovered: 0, abandoned: 0, disconnected: 0, scheduled: 0, requeued: 0 };
    const attempts = this.runtime.config.discovery.attempts;
    for (const c of await this.state.listExpiredLeases(BATCH)) {
      if (!c.leaseOwner || !(await this.state.reclaimExpiredLease(c.id, c.leaseOwner))) continue;
      await this.runs.failRunning(c.id, ORPHANED_RUN);
      const spent = await this.runs.countSince(c.id, c.discoveryRequestedAt ?? new Date(0));
      if (spent >= attempts) {
        const next = nextDiscoveryAt({ discoveryIntervalSeconds: null }, this.runtime.config.discovery.intervalSeconds);
        await this.state.markError(c.id, `discovery did not finish: the worker running it stopped ${spent} times in a row`, next);
        report.abandoned++;
      } else {
        await this.producer.request(c.id, 'recovered');
        report.recovered++;
      }
    }
    for (const id of await this.state.disconnectDisabled(BATCH)) {
      this.watcher.unwatch(id);
      report.disconnected++;
    }
    // Watches of servers deleted or disabled (possibly through another process) are closed.
    const watched = this.watcher.watchedIds();
    const live = await this.state.enabledAmong(watched);
    for (const id of watched) if (!live.has(id)) this.watcher.unwatch(id);
    const queued = new Set<string>();
    for (const id of await this.state.takeDue(BATCH)) {
      await this.producer.request(id, 'scheduled');
      queued.add(id);
      report.scheduled++;
    }
    for (const c of await this.state.listWaiting(BATCH * 2)) {
      if (queued.has(c.id)) continue;
      await this.producer.request(c.id, 'recovered');
      report.requeued++;
    }
    if (report.recovered + report.abandoned + report.disconnected + report.scheduled > 0) {
      this.runtime.logger.info({ ...report }, 'discovery sweep');
    }
    return report;
  }
}
