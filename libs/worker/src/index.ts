export { WorkerModule } from './worker.module';
export { DiscoveryProcessor, LOCK_DURATION_MS, STALLED_INTERVAL_MS, BUSY_RETRY_MS, ENDED_BATCH_MS } from './discovery.processor';
export { WebhookProcessor, WEBHOOK_CONCURRENCY } from './webhook.processor';
