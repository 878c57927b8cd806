import { VirtualServerRepository } from '@app/database';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { McpChangeStreams } from '../mcp/mcp-change-streams.service';

/** How often a replica holding change streams looks for virtual servers changed on another replica. */
export const VIRTUAL_CHANGE_POLL_MS = 1000;

/**
 * A virtual server changed through another replica reaches no catalog change feed (its members did not
 * change), so each replica reads a mark of all virtual servers about once a second (one short statement) and
 * has its change streams checked again when the mark moved. Changes through this replica are rechecked
 * at once by the service that makes them.
 */
@Injectable()
export class VirtualServerChanges implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(VirtualServerChanges.name);
  private timer?: NodeJS.Timeout;
  private mark?: string;
  private stopped = false;

  constructor(
    private readonly repository: VirtualServerRepository,
    private readonly streams: McpChangeStreams,
  ) {}

  onApplicationBootstrap(): void {
    // The first mark is read at start, not a poll later: a change made before that first read would otherwise
    // become the mark it is compared with, and never be announced. Not awaited: a start never waits on it.
    void this.poll().finally(() => this.schedule());
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll().finally(() => this.schedule()), VIRTUAL_CHANGE_POLL_MS);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      // Read even while no stream is open: a stream opened just before a change must hear of it.
      const mark = await this.repository.changeMark();
      // A recheck announces only the lists that differ from what each stream was last told, so one too many
      // (the first mark read, or a mark that could not be read before) announces nothing false.
      if (mark !== this.mark && this.streams.size > 0) this.streams.recheck();
      this.mark = mark;
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'virtual servers could not be read for changes; trying again');
    }
  }
}
