import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ServerController } from './server.controller';
import { credentialsCipherProvider, outboundPolicyProvider } from './server-secrets';
import { ServerService } from './server.service';

@Module({
  imports: [AuditModule],
  controllers: [ServerController],
  providers: [ServerService, credentialsCipherProvider, outboundPolicyProvider],
  exports: [ServerService, credentialsCipherProvider, outboundPolicyProvider],
})
export class ServerModule {}
