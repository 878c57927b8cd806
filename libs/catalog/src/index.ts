export * from './server-json';
export { validateServerJson, isServerJson } from './server-json.validator';
export { convertClientEntry, guessTransport, CLIENT_CONFIG_META, CLIENT_CONFIG_NAMESPACE, ConvertedEntry } from './client-config';
export { readImportBody, ImportItem, ImportFormat } from './import-body';
export { instantiate, Instantiation, CatalogRegistration, InputValue } from './instantiate';
export { readRegistry, SyncBounds, DEFAULT_SYNC_BOUNDS, UpstreamEntry, SyncFailure } from './registry-reader';
export { CatalogSyncService, CATALOG_SYNC_BOUNDS, SyncReport } from './catalog-sync.service';
export { canonicalJson } from './canonical-json';
export { planEntryWrites, PlannedEntryWrite, EntryInput } from './entry-writes';
