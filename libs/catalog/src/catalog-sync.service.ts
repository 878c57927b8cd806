import { CatalogEntryRepository, CatalogSourceRepository } from '@app/database';
import { OutboundBlockedError, OutboundPolicy } from '@app/mcp';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DEFAULT_SYNC_BOUNDS, readRegistry, SyncBounds, SyncFailure } from './registry-reader';
import type { ServerJson } from './server-json';
import { validateServerJson } from './server-json.validator';
import { planEntryWrites } from './entry-writes';

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
    const planned = await planEntryWrites(
      this.entries,
      null,
      valid.map((e) => ({ doc: e.doc as ServerJson, status: e.status, statusMessage: e.statusMessage, sourceId: source.id, publishedAt: e.publishedAt, updatedAt: e.updatedAt })),
    );
    // An entry deleted upstream that this catalog never had is not written at all.
    const inserts = planned.filter((p) => p.outcome === 'added' && p.write.status !== 'deleted').map((p) => p.write);
    const updates = planned.filter((p) => p.outcome === 'updated').map((p) => p.write);
    const deletedNames = new Set(planned.filter((p) => p.write.status === 'deleted' && p.stored?.status !== 'deleted').map((p) => p.write.name));
    await this.entries.write(null, inserts, updates);
    // A name whose every version is now deleted: its servers are withdrawn.
    const gone: string[] = [];
    for (const name of deletedNames) {
      const live = await this.entries.versions({}, name);
      if (live.length === 0) gone.push(name);
    }
    const reason = 'disabled: its catalog entry was deleted upstream';
    const disabled = await this.entries.disableBuiltInServersOf(gone, CATALOG_NAME_LABEL, reason, (server) => ({
      actorType: 'system',
      actorId: `catalog source ${source.baseUrl}`,
      tenantId: null,
      action: 'server.update',
      resourceType: 'server',
      resourceId: server.id,
      detail: { name: server.name, fields: ['enabled'], reason },
    }));
    const summary = `${read.pages} pages, ${inserts.length} added, ${updates.length} updated, ${deletedNames.size} deleted, ${refused} refused by the schema, ${read.duplicates} duplicates dropped, ${disabled.length} servers disabled`;
    await this.sources.recordSuccess(source.id, summary, newest);
    this.logger.log({ sourceId, pages: read.pages, added: inserts.length, updated: updates.length, deleted: deletedNames.size, refused, durationMs: Date.now() - started }, 'catalog sync finished');
    return { outcome: 'succeeded', reason: summary, added: inserts.length, updated: updates.length, deleted: deletedNames.size, refused };
  }
}
