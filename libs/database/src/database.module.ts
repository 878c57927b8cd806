import { Global, Module } from '@nestjs/common';
import { ApiKeyRepository } from './repositories/api-key.repository';
import { AuditRepository } from './repositories/audit.repository';
import { CatalogEntryRepository } from './repositories/catalog-entry.repository';
import { CatalogSourceRepository } from './repositories/catalog-source.repository';
import { DiscoveryRunRepository } from './repositories/discovery-run.repository';
import { DiscoveryStateRepository } from './repositories/discovery-state.repository';
import { HealthRepository } from './repositories/health.repository';
import { OAuthRepository } from './repositories/oauth.repository';
import { ServerRepository } from './repositories/server.repository';
import { TenantRepository } from './repositories/tenant.repository';
import { ServerListingRepository } from './repositories/server-listing.repository';
import { ToolRepository } from './repositories/tool.repository';
import { ToolReviewRepository } from './repositories/tool-review.repository';
import { VirtualServerRepository } from './repositories/virtual-server.repository';
import { WebhookDeliveryRepository } from './repositories/webhook-delivery.repository';
import { WebhookRepository } from './repositories/webhook.repository';

const REPOSITORIES = [TenantRepository, ApiKeyRepository, ServerRepository, AuditRepository, ToolRepository, ToolReviewRepository, ServerListingRepository, DiscoveryRunRepository, DiscoveryStateRepository, OAuthRepository, CatalogEntryRepository, CatalogSourceRepository, HealthRepository, VirtualServerRepository, WebhookRepository, WebhookDeliveryRepository];

/** The repositories, on the process's one PrismaClient (the PRISMA token comes from the platform module). */
@Global()
@Module({
  providers: REPOSITORIES,
  exports: REPOSITORIES,
})
export class DatabaseModule {}
