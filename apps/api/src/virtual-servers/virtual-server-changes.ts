import { ChangeFeed } from '@app/database';
import { Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { McpChangeStreams } from '../mcp/mcp-change-streams.service';
import { virtualRouteName } from './virtual-mcp.service';

/**
 * A virtual server's own changes (made, renamed, its members replaced, deleted), through any replica, reach this
 * one on the registry's change feed (the triggers on virtual_servers and their members log them): the change
 * streams of that virtual server are checked again. A change of a member server reaches them through the tool
 * catalog, as for /mcp. Nothing is read here: with no stream open, a change costs nothing.
 */
@Injectable()
export class VirtualServerChanges implements OnApplicationBootstrap, OnModuleDestroy {
  private unsubscribe?: () => void;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly streams: McpChangeStreams,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.feed.subscribe({
      virtualServers: (changes) => {
        for (const c of changes) this.streams.recheck(virtualRouteName(c.virtualServerId));
      },
      // Changes may have been missed: every stream is checked (a check announces only the lists that differ).
      gap: () => this.streams.recheck(),
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }
}
