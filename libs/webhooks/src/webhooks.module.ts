import { DatabaseModule } from '@app/database';
import { McpModule } from '@app/mcp';
import { Module } from '@nestjs/common';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookDispatcher } from './webhook-dispatcher';

/** The worker's side of webhooks: the dispatcher and the delivery of one attempt. */
@Module({
  imports: [DatabaseModule, McpModule],
  providers: [WebhookDeliveryService, WebhookDispatcher],
  exports: [WebhookDeliveryService, WebhookDispatcher],
})
export class WebhooksModule {}
