export { WebhooksModule } from './webhooks.module';
export { WebhookDeliveryService, AttemptReport, LEASE_MARGIN_MS, WEBHOOK_USER_AGENT } from './webhook-delivery.service';
export { WebhookDispatcher, DISPATCH_INTERVAL_MS, SWEEP_INTERVAL_MS, OVERDUE_GRACE_MS } from './webhook-dispatcher';
export { WebhookSender, SendResult, MAX_RESPONSE_BYTES } from './webhook-sender';
export { webhookPayload, WebhookEvent, MAX_PAYLOAD_BYTES } from './webhook-payload';
export { generateWebhookSecret, sealWebhookSecret, openWebhookSecret, WEBHOOK_SECRET_PREFIX } from './webhook-secret';
