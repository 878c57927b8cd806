import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ServerModule } from '../servers/server.module';
import { IntegrationController } from './integration.controller';
import { IntegrationService } from './integration.service';

@Module({
  imports: [AuditModule, ServerModule],
  controllers: [IntegrationController],
  providers: [IntegrationService],
})
export class IntegrationModule {}
