import { DatabaseModule } from '@app/database';
import { McpModule } from '@app/mcp';
import { OAuthModule } from '@app/oauth';
import { Module } from '@nestjs/common';
import { DiscoveryRequestsModule } from './discovery-requests.module';
import { DiscoveryScheduler } from './discovery-scheduler';
import { DiscoveryService } from './discovery.service';
import { ToolChangeWatcher } from './tool-change-watcher';

/** Discovery: one attempt at a time (the service), the sweeps (the scheduler) and the list-changed watches. */
@Module({
  imports: [DatabaseModule, McpModule, OAuthModule, DiscoveryRequestsModule],
  providers: [DiscoveryService, DiscoveryScheduler, ToolChangeWatcher],
  exports: [DiscoveryService, DiscoveryScheduler, ToolChangeWatcher],
})
export class DiscoveryModule {}
