export { QueueName, JobName, DiscoveryTrigger, DiscoverJobData, SweepJobData, JobItem, JobOf } from './jobs';
export { QueueConnection, QueueConnectionOptions, QueueUnavailableError, QueueBackendKind, Job } from './queue-connection';
