import { DiscoveryRequestsModule } from '@app/discovery';
import { McpModule } from '@app/mcp';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogRegistrationService } from '../catalog/catalog-registration';
import { PlatformServersService } from './platform-servers.service';
import { ServerListingController } from './server-listing.controller';
import { ServerListingService } from './server-listing.service';
import { ServerToolsController } from './server-tools.controller';
import { ServerToolsService } from './server-tools.service';
import { ServerController } from './server.controller';
import { ServerService } from './server.service';

@Module({
  imports: [AuditModule, DiscoveryRequestsModule, McpModule],
  controllers: [ServerController, ServerListingController, ServerToolsController],
  providers: [ServerService, ServerListingService, ServerToolsService, PlatformServersService, CatalogRegistrationService],
  exports: [DiscoveryRequestsModule, ServerService, PlatformServersService, McpModule],
})
export class ServerModule {}
