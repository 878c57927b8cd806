export { DiscoveryModule } from './discovery.module';
export { DiscoveryService, DiscoveryAttempt, AttemptOutcome, LEASE_MARGIN_MS, ORPHANED_RUN, nextDiscoveryAt } from './discovery.service';
export { DiscoveryScheduler, SweepReport, sweepIntervalMs } from './discovery-scheduler';
export { ToolChangeWatcher, WatchLimits, DEFAULT_WATCH_LIMITS, WATCH_LIMITS } from './tool-change-watcher';
export { DISCOVERY_LIMITS } from './discovery.tokens';
export { listAllTools, countItems, ListingLimits, DEFAULT_LISTING_LIMITS, ToolListing, ListingContext } from './tool-lister';
export { checkTool, canonicalJson, toolHash, ToolCollector, ToolCheck, MAX_TOOL_BYTES, MAX_DROPPED_REPORTED } from './tool-definition';
export { TenantShare, shareRetryMs, SHARE_RETRY_MS, SHARE_RETRY_MAX_MS } from './tenant-share';
