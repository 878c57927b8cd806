import { DiscoveryRequestsModule } from '@app/discovery';
import { McpModule } from '@app/mcp';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogRegistrationService } from '../catalog/catalog-registration';
import { PlatformServersService } from './platform-servers.service';
import { ServerController } from './server.controller';
import { ServerService } from './server.service';

@Module({
  imports: [AuditModule, DiscoveryRequestsModule, McpModule],
  controllers: [ServerController],
  providers: [ServerService, PlatformServersService, CatalogRegistrationService],
  exports: [DiscoveryRequestsModule, ServerService, PlatformServersService, McpModule],
})
export class ServerModule {}
