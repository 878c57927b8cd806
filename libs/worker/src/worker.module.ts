import { CatalogSyncService } from '@app/catalog';
import { DiscoveryModule } from '@app/discovery';
import { RegistryServerModule } from '@app/mcp-server';
import { DynamicModule, Module } from '@nestjs/common';
import { WebhooksModule } from '@app/webhooks';
import { DiscoveryProcessor } from './discovery.processor';
import { WebhookProcessor } from './webhook.processor';

/**
 * The worker: discovery and webhook delivery processors and schedulers, no controllers. Run by `apps/worker` on its own, and by the
 * API process when WORKER_ENABLED.
 */
@Module({})
export class WorkerModule {
  static forRoot(): DynamicModule {
    return {
      module: WorkerModule,
      // The registry's own MCP server, so that this worker can discover the INTERNAL server in-process.
      imports: [DiscoveryModule, RegistryServerModule, WebhooksModule],
      providers: [DiscoveryProcessor, CatalogSyncService, WebhookProcessor],
    };
  }
}
