export { QueueName, JobName, DiscoveryTrigger, DiscoverJobData, DiscoveryTarget, SweepJobData, CatalogSyncJobData, JobItem, JobOf } from './jobs';
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
