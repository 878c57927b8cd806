import { CatalogEntryRecord, CatalogEntryRepository, CatalogEntryWrite } from '@app/database';
import { timeOrderedUuid } from '@app/domain';
import { canonicalJson } from './canonical-json';
import type { ServerJson } from './server-json';

/** One entry to put in a catalog: its server.json and what is said of it besides (status, where it came from). */
export type EntryInput = { doc: ServerJson } & Omit<CatalogEntryWrite, 'id' | 'name' | 'version' | 'serverJson'>;

/** What writing one entry does: a (name, version) not in the catalog is added; one whose document, status or status message differs is updated; the rest stay. */
export interface PlannedEntryWrite {
  write: CatalogEntryWrite;
  stored?: CatalogEntryRecord;
  outcome: 'added' | 'updated' | 'unchanged';
}

/**
 * Plans the writes of entries into one owner's catalog (the platform's for `tenantId` null), with one read of
 * what it holds under those names: an entry already there keeps its id. Import and the source sync both write
 * their entries through this.
 */
export async function planEntryWrites(entries: CatalogEntryRepository, tenantId: string | null, inputs: EntryInput[]): Promise<PlannedEntryWrite[]> {
  const existing = await entries.findByNames(tenantId, inputs.map((i) => i.doc.name));
  const byKey = new Map(existing.map((e) => [`${e.name}\u0000${e.version}`, e]));
  return inputs.map(({ doc, ...rest }) => {
    const stored = byKey.get(`${doc.name}\u0000${doc.version}`);
    const write: CatalogEntryWrite = { id: stored?.id ?? timeOrderedUuid(), name: doc.name, version: doc.version, serverJson: doc, ...rest };
    const same = stored && canonicalJson(stored.serverJson) === canonicalJson(doc) && stored.status === write.status && (stored.statusMessage ?? null) === write.statusMessage;
    return { write, stored, outcome: !stored ? 'added' : same ? 'unchanged' : 'updated' };
  });
}
