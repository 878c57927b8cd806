export { createPrismaClient, createDatabaseClients, DatabaseClients, PrismaClient } from './prisma.service';
export { Sql, TransactionQuery } from './sql';
export { DatabaseAvailability, isDatabaseUnavailable, DATABASE_RETRY_AFTER_SECONDS } from './database-availability';
export { PRISMA, SQL } from './tokens';
export { DatabaseModule } from './database.module';
export { Page, PageRequest, Cursor, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, encodeCursor, decodeCursor, isUuid } from './page';
export { ReadScope, PLATFORM_SCOPE, ownerScopeOf, visibleSql } from './scope';
export { translatePrismaError, prismaCode } from './prisma-errors';
export { TenantRepository, TenantRecord, TenantLimitOverrides } from './repositories/tenant.repository';
export { ApiKeyRepository, ApiKeyRecord } from './repositories/api-key.repository';
export { ServerRepository, ServerCreate, ServerChange, ServerFilter, ServerQuota } from './repositories/server.repository';
export { HealthRepository } from './repositories/health.repository';
export { AuditRepository, AuditEventInput, AuditEventRecord, AuditActorType, AuditFilter } from './repositories/audit.repository';
export {
  OAuthRepository,
  OAuthClientRecord,
  ServerOAuthRecord,
  ServerOAuthConfigRecord,
  OAuthRequestRecord,
  TokenWrite,
  StatusWrite,
  RowLockTimeoutError,
} from './repositories/oauth.repository';
export { toAuthorizationView } from './repositories/server.mapper';
export {
  CatalogEntryRepository,
  CatalogEntryRecord,
  CatalogEntryWrite,
  CatalogEntryFilter,
  CatalogEntryStatus,
  CatalogScope,
  CatalogDiscovery,
} from './repositories/catalog-entry.repository';
export { CatalogSourceRepository, CatalogSourceRecord } from './repositories/catalog-source.repository';
export { ToolRepository, StoredTool, ToolChanges, ToolApproval, WithheldReason, WithheldTool } from './repositories/tool.repository';
export { ServerListingRepository, DiscoveredListings } from './repositories/server-listing.repository';
export {
  ToolReviewRepository,
  HeldToolRecord,
  ToolDecision,
  ToolDecisionRecord,
  ToolOverrideInput,
  ToolOverrideRecord,
} from './repositories/tool-review.repository';
export {
  LIVE_SERVER,
  TOOL_OVERRIDE_JOIN,
  SERVED_TOOL,
  SERVED_DEFINITION,
  definitionJson,
} from './repositories/effective-tools';
export { DiscoveryRunRepository, DiscoveryRunRecord, DroppedTool, ToolChange } from './repositories/discovery-run.repository';
export {
  DiscoveryStateRepository,
  DiscoverySubject,
  ClaimResult,
  DiscoveredIdentity,
  DiscoverySuccess,
  DiscoveryFailure,
  RecordResult,
  SweepCandidate,
} from './repositories/discovery-state.repository';
export { CatalogRepository, CatalogServerRow, CatalogToolRow, CatalogDefinitionRow, INSTRUCTIONS_OPENING } from './repositories/catalog.repository';
export { ChangeFeedRepository, ChangeLogRow, ChangeLogPage, VirtualServerChangeLogRow } from './repositories/change-feed.repository';
export {
  ChangeFeed,
  ChangeFeedModule,
  ChangeFeedSubscriber,
  ChangeFeedOptions,
  CHANGE_FEED_OPTIONS,
  CHANGE_FEED_CHANNEL,
  CHANGE_FEED_GATHER_MS,
  CHANGE_FEED_POLL_MS,
  FeedChange,
  VirtualServerFeedChange,
} from './change-feed';
export { NotificationListener, NotificationHandlers, CHANGE_LISTENER_APPLICATION_NAME } from './notification-listener';
export { ServerEventInput, ServerEventType, SERVER_EVENT_TYPES, serverEventInsert } from './repositories/server-events';
export {
  VirtualServerRepository,
  VirtualServerRecord,
  VirtualServerMember,
  VirtualServerCreate,
  VirtualServerChange,
  MemberServer,
} from './repositories/virtual-server.repository';
export { WebhookRepository, WebhookRecord, WebhookCreate, WebhookChange } from './repositories/webhook.repository';
export {
  WebhookDeliveryRepository,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookAttemptRecord,
  ClaimedDelivery,
  ClaimResult as WebhookClaimResult,
  AttemptOutcome,
  DueDelivery,
} from './repositories/webhook-delivery.repository';
