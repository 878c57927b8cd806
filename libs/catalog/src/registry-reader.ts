import { CatalogStatus, CATALOG_STATUSES, OFFICIAL_META } from './server-json';

/** How much one sync reads at most: a source that goes past a bound ends the sync with that reason. */
export interface SyncBounds {
  pages: number;
  entries: number;
  /** Bytes of one page's body. */
  pageBytes: number;
  /** The whole sync. */
  timeMs: number;
  pageSize: number;
}

export const DEFAULT_SYNC_BOUNDS: SyncBounds = { pages: 200, entries: 20_000, pageBytes: 8 * 1024 * 1024, timeMs: 120_000, pageSize: 100 };

export interface UpstreamEntry {
  doc: unknown;
  status: CatalogStatus;
  statusMessage: string | null;
  publishedAt?: Date;
  updatedAt?: Date;
}

export class SyncFailure extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

async function readBounded(res: Response, max: number, signal: AbortSignal): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    if (signal.aborted) throw new SyncFailure('timed out');
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw new SyncFailure(`a page was larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const date = (v: unknown) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(v) : undefined);

/**
 * Reads an upstream Registry API's `/v0.1/servers` page by page (`cursor`, `limit`), from `updatedSince` when
 * given (then deleted entries come too), within the bounds; duplicates within a page (same name and version)
 * are dropped. Any failure is a SyncFailure with its reason; nothing is returned partly.
 */
export async function readRegistry(baseUrl: string, opts: { updatedSince?: Date; fetch: typeof fetch; bounds: SyncBounds }): Promise<{ entries: UpstreamEntry[]; pages: number; duplicates: number }> {
  const { bounds } = opts;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), bounds.timeMs);
  const entries: UpstreamEntry[] = [];
  let duplicates = 0;
  let pages = 0;
  let cursor: string | undefined;
  try {
    do {
      if (pages >= bounds.pages) throw new SyncFailure(`more than ${bounds.pages} pages`);
      const url = new URL(`${baseUrl.replace(/\/+$/, '')}/v0.1/servers`);
      url.searchParams.set('limit', String(bounds.pageSize));
      if (cursor) url.searchParams.set('cursor', cursor);
      if (opts.updatedSince) url.searchParams.set('updated_since', opts.updatedSince.toISOString());
      let res: Response;
      try {
        res = await opts.fetch(url.href, { signal: controller.signal, headers: { accept: 'application/json' } });
      } catch (err) {
        if (controller.signal.aborted) throw new SyncFailure(`timed out after ${bounds.timeMs} ms`);
        throw new SyncFailure(`could not be reached: ${(err as Error).message}`.slice(0, 300));
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        throw new SyncFailure(`answered ${res.status} to ${url.pathname}`);
      }
      let body: unknown;
      try {
        body = JSON.parse(await readBounded(res, bounds.pageBytes, controller.signal));
      } catch (err) {
        if (err instanceof SyncFailure) throw err;
        if (controller.signal.aborted) throw new SyncFailure(`timed out after ${bounds.timeMs} ms`);
        throw new SyncFailure('answered a page that is not JSON');
      }
      if (!isObject(body) || !Array.isArray(body.servers)) throw new SyncFailure('answered a page without a servers list');
      pages++;
      const seen = new Set<string>();
      for (const item of body.servers) {
        if (!isObject(item)) continue;
        const doc = item.server;
        const key = isObject(doc) ? `${String(doc.name)}\u0000${String(doc.version)}` : '';
        if (seen.has(key)) {
          duplicates++;
          continue;
        }
        seen.add(key);
        const official = isObject(item._meta) && isObject(item._meta[OFFICIAL_META]) ? item._meta[OFFICIAL_META] : {};
        entries.push({
          doc,
          status: CATALOG_STATUSES.find((s) => s === official.status) ?? 'active',
          statusMessage: typeof official.statusMessage === 'string' ? official.statusMessage.slice(0, 500) : null,
          publishedAt: date(official.publishedAt),
          updatedAt: date(official.updatedAt),
        });
        if (entries.length > bounds.entries) throw new SyncFailure(`more than ${bounds.entries} entries`);
      }
      const next = isObject(body.metadata) && typeof body.metadata.nextCursor === 'string' && body.metadata.nextCursor ? body.metadata.nextCursor : undefined;
      if (next && next === cursor) throw new SyncFailure('answered the same cursor twice');
      cursor = next;
    } while (cursor);
  } finally {
    clearTimeout(timer);
  }
  return { entries, pages, duplicates };
}
