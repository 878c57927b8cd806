import { DiscoveryRequestsModule } from '@app/discovery';
import { McpModule } from '@app/mcp';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogRegistrationService } from '../catalog/catalog-registration';
import { PlatformServersService } from './platform-servers.service';
import { ServerListingController } from './server-listing.controller';
import { ServerListingService } from './server-listing.service';
import { ServerController } from './server.controller';
import { ServerService } from './server.service';

@Module({
  imports: [AuditModule, DiscoveryRequestsModule, McpModule],
  controllers: [ServerController, ServerListingController],
  providers: [ServerService, ServerListingService, PlatformServersService, CatalogRegistrationService],
  exports: [DiscoveryRequestsModule, ServerService, PlatformServersService, McpModule],
})
export class ServerModule {}
