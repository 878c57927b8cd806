/** Every queue of the product. */
export enum QueueName {
  Discovery = 'discovery',
  /** Webhook deliveries: apart from discoveries, so that a slow receiver never holds a discovery's place. */
  Webhooks = 'webhooks',
}

/** Every job name, across queues. */
export enum JobName {
  /** Connect to one server and record what it offers. */
  Discover = 'discover',
  /** Rebuild schedules and requeue missed or stranded work from the database. */
  Sweep = 'sweep',
  /** Read one catalog source's upstream Registry API into the platform's catalog. */
  CatalogSync = 'catalog-sync',
  /** Send one webhook delivery (one attempt; the delivery row says which and records it). */
  DeliverWebhook = 'deliver-webhook',
}

/** Why a discovery was asked for; recorded on the discovery run. */
export type DiscoveryTrigger = 'registered' | 'updated' | 'manual' | 'scheduled' | 'list-changed' | 'recovered' | 'startup' | 'authorized';

export interface DiscoverJobData {
  serverId: string;
  trigger: DiscoveryTrigger;
  /**
   * The server's tenant (null: a platform server), when the producer knew it: the worker holds each tenant to its
   * share of its places before claiming the server. Absent, the worker looks it up.
   */
  tenantId?: string | null;
}

/** A server to discover: its id, or its id and tenant (which spares the worker a lookup). */
export type DiscoveryTarget = string | { id: string; tenantId: string | null };

export type SweepJobData = Record<string, never>;

/** The one union that types every job payload. Payloads never hold a secret. */
export interface CatalogSyncJobData {
  sourceId: string;
}

/** The delivery's id only: the worker reads the event, the webhook and its secret from the database. */
export interface DeliverWebhookJobData {
  deliveryId: string;
}

export type JobItem =
  | { name: JobName.Discover; data: DiscoverJobData }
  | { name: JobName.Sweep; data: SweepJobData }
  | { name: JobName.CatalogSync; data: CatalogSyncJobData }
  | { name: JobName.DeliverWebhook; data: DeliverWebhookJobData };

export type JobOf<N extends JobName> = Extract<JobItem, { name: N }>;
