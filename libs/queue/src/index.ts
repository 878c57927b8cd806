export { QueueName, JobName, DiscoveryTrigger, DiscoverJobData, DiscoveryTarget, SweepJobData, CatalogSyncJobData, DeliverWebhookJobData, JobItem, JobOf } from './jobs';
export { WebhookProducer, WebhookJobPolicy, WEBHOOK_JOB_POLICY, MAX_WEBHOOK_BACKOFF_MS, DueAttempt } from './webhook.producer';
export { QueueConnection, QueueConnectionOptions, QueueUnavailableError, QueueBackendKind, Job, withTimeout } from './queue-connection';
export {
  DiscoveryProducer,
  DiscoveryJobPolicy,
  DISCOVERY_JOB_POLICY,
  QUEUE_CONNECTION,
  ENQUEUE_TIMEOUT_MS,
  QueueUnavailableNowError,
} from './discovery.producer';
export { QueueModule } from './queue.module';
