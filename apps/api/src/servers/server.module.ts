import { DiscoveryRequestsModule } from '@app/discovery';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogRegistrationService } from '../catalog/catalog-registration';
import { PlatformServersService } from './platform-servers.service';
import { ServerController } from './server.controller';
import { credentialsCipherProvider, outboundPolicyProvider } from './server.providers';
import { ServerService } from './server.service';

@Module({
  imports: [AuditModule, DiscoveryRequestsModule],
  controllers: [ServerController],
  providers: [ServerService, PlatformServersService, CatalogRegistrationService, credentialsCipherProvider, outboundPolicyProvider],
  exports: [DiscoveryRequestsModule, ServerService, PlatformServersService, credentialsCipherProvider, outboundPolicyProvider],
})
export class ServerModule {}
