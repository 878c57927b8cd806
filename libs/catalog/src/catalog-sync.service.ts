import { CatalogEntryRepository, CatalogEntryWrite, CatalogSourceRepository } from '@app/database';
import { timeOrderedUuid } from '@app/domain';
import { OutboundBlockedError, OutboundPolicy } from '@app/mcp';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DEFAULT_SYNC_BOUNDS, readRegistry, SyncBounds, SyncFailure } from './registry-reader';
import type { ServerJson } from './server-json';
import { validateServerJson } from './server-json.validator';
import { canonicalJson } from './canonical-json';

/** The label a server made from a catalog entry carries (see fromCatalog). */
export const CATALOG_NAME_LABEL = 'catalog.name';
export const CATALOG_SYNC_BOUNDS = Symbol('CATALOG_SYNC_BOUNDS');

export interface SyncReport {
  outcome: 'succeeded' | 'failed';
  reason: string;
  added: number;
  updated: number;
  deleted: number;
  refused: number;
}

/**
 * One sync of a catalog source: its upstream Registry API read whole the first time, then from the last
 * updatedAt seen; entries invalid under the schema are skipped and counted; a deleted entry leaves the catalog
 * and the BUILT_IN servers made from it are disabled with that reason. A failed read changes nothing but the
 * source's outcome and reason.
 */
@Injectable()
export class CatalogSyncService {
  private readonly logger = new Logger(CatalogSyncService.name);

  constructor(
    private readonly sources: CatalogSourceRepository,
    private readonly entries: CatalogEntryRepository,
    private readonly policy: OutboundPolicy,
    @Optional() @Inject(CATALOG_SYNC_BOUNDS) private readonly bounds: SyncBounds = DEFAULT_SYNC_BOUNDS,
  ) {}

  async sync(sourceId: string, bounds: Partial<SyncBounds> = {}): Promise<SyncReport | undefined> {
    const source = await this.sources.findById(sourceId);
    if (!source) return undefined;
    const started = Date.now();
    let read;
    try {
      await this.policy.assertAllowed(`${source.baseUrl.replace(/\/+$/, '')}/v0.1/servers`);
      read = await readRegistry(source.baseUrl, { updatedSince: source.cursorUpdatedSince ?? undefined, fetch: this.policy.createFetch(3), bounds: { ...this.bounds, ...bounds } });
    } catch (err) {
      const reason = err instanceof SyncFailure ? `the source ${err.message}` : err instanceof OutboundBlockedError ? `refused by the outbound address policy: ${err.message}` : `the sync failed: ${(err as Error).message}`.slice(0, 300);
      await this.sources.recordFailure(source.id, reason);
      this.logger.warn({ sourceId, reason, durationMs: Date.now() - started }, 'catalog sync failed');
      return { outcome: 'failed', reason, added: 0, updated: 0, deleted: 0, refused: 0 };
    }
    const valid = read.entries.filter((e) => validateServerJson(e.doc).length === 0);
    // The next sync starts after everything this one read, refused entries included (they are not read again until they change).
    let newest = source.cursorUpdatedSince;
    for (const e of read.entries) if (e.updatedAt && (!newest || e.updatedAt > newest)) newest = e.updatedAt;
    const refused = read.entries.length - valid.length;
    const docs = valid.map((e) => e.doc as ServerJson);
    const existing = await this.entries.findByNames(null, docs.map((d) => d.name));
    const byKey = new Map(existing.map((e) => [`${e.name}\u0000${e.version}`, e]));
    const inserts: CatalogEntryWrite[] = [];
    const updates: CatalogEntryWrite[] = [];
    const deletedNames = new Set<string>();
    for (const [i, e] of valid.entries()) {
      const doc = docs[i];
      const stored = byKey.get(`${doc.name}\u0000${doc.version}`);
      const write: CatalogEntryWrite = {
        id: stored?.id ?? timeOrderedUuid(),
        name: doc.name,
        version: doc.version,
        serverJson: doc,
        status: e.status,
        statusMessage: e.statusMessage,
        sourceId: source.id,
        publishedAt: e.publishedAt,
        updatedAt: e.updatedAt,
      };
      if (e.status === 'deleted' && stored?.status !== 'deleted') deletedNames.add(doc.name);
      if (!stored) {
        if (e.status !== 'deleted') inserts.push(write);
      } else if (canonicalJson(stored.serverJson) !== canonicalJson(doc) || stored.status !== e.status || stored.statusMessage !== e.statusMessage) updates.push(write);
    }
    await this.entries.write(null, inserts, updates);
    // A name whose every version is now deleted: its servers are withdrawn.
    const gone: string[] = [];
    for (const name of deletedNames) {
      const live = await this.entries.versions({}, name);
      if (live.length === 0) gone.push(name);
    }
    const disabled = await this.entries.disableBuiltInServersOf(gone, CATALOG_NAME_LABEL, 'disabled: its catalog entry was deleted upstream');
    const summary = `${read.pages} pages, ${inserts.length} added, ${updates.length} updated, ${deletedNames.size} deleted, ${refused} refused by the schema, ${read.duplicates} duplicates dropped, ${disabled.length} servers disabled`;
    await this.sources.recordSuccess(source.id, summary, newest);
    this.logger.log({ sourceId, pages: read.pages, added: inserts.length, updated: updates.length, deleted: deletedNames.size, refused, durationMs: Date.now() - started }, 'catalog sync finished');
    return { outcome: 'succeeded', reason: summary, added: inserts.length, updated: updates.length, deleted: deletedNames.size, refused };
  }
}
