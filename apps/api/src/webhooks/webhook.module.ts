import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ServerModule } from '../servers/server.module';
import { WebhookController } from './webhook.controller';
import { WebhookService } from './webhook.service';

@Module({
  imports: [AuditModule, ServerModule],
  controllers: [WebhookController],
  providers: [WebhookService],
})
export class WebhookModule {}
