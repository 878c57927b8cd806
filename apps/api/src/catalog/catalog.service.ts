import { CatalogEntryRecord, CatalogEntryRepository, CatalogScope, DEFAULT_PAGE_SIZE } from '@app/database';
import { OFFICIAL_META, planEntryWrites, readImportBody, ServerJson, validateServerJson } from '@app/catalog';
import { FieldError, InvalidInputError, PayloadTooLargeError, Principal } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { CatalogEntryDto, CatalogPageDto, ImportItemResultDto, ImportResultDto, ListCatalogQueryDto } from './catalog.dto';

/** Items one import takes at most. */
export const MAX_IMPORT_ITEMS = 1000;

export function toCatalogEntryDto(e: CatalogEntryRecord): CatalogEntryDto {
  const s = e.serverJson as Partial<ServerJson>;
  return {
    id: e.id,
    name: e.name,
    version: e.version,
    title: typeof s.title === 'string' ? s.title : null,
    description: typeof s.description === 'string' ? s.description : '',
    isLatest: e.isLatest,
    status: e.status,
    statusMessage: e.statusMessage,
    tenantId: e.tenantId,
    sourceId: e.sourceId,
    publishedAt: e.publishedAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    server: e.serverJson,
  };
}

/** The scope of the caller's catalog reads: the platform's entries, and a tenant's own. */
export function catalogScopeOf(principal: Principal, allTenants = false): CatalogScope {
  return principal.type === 'tenant' ? { tenantId: principal.tenantId } : { allTenants };
}

/**
 * The catalog: published server descriptions (server.json 2025-12-11), imported from files, Registry API
 * pages and client configs, validated against the schema, stored as given.
 */
@Injectable()
export class CatalogService {
  constructor(
    private readonly entries: CatalogEntryRepository,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal, query: ListCatalogQueryDto): Promise<CatalogPageDto> {
    const page = await this.entries.list(catalogScopeOf(principal, true), { q: query.q?.trim() || undefined, status: query.status }, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { entries: page.items.map(toCatalogEntryDto), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }

  /**
   * One import, all or nothing: every item is validated first; one refused item refuses the request, naming
   * each wrong field of each refused item (`servers.2.server.description`). Otherwise each item is added,
   * updated (same name and version, different content or status) or left unchanged.
   */
  async import(principal: Principal, body: unknown): Promise<ImportResultDto> {
    const tenantId = principal.type === 'tenant' ? principal.tenantId : null;
    const { format, items } = readImportBody(body);
    if (items.length === 0) throw new InvalidInputError('body: holds no server to import', [{ field: 'body', message: 'holds no server to import' }]);
    if (items.length > MAX_IMPORT_ITEMS) throw new PayloadTooLargeError(`body: holds ${items.length} servers; at most ${MAX_IMPORT_ITEMS} are imported at once`);

    const errors: FieldError[] = [];
    const seen = new Map<string, string>();
    let refused = 0;
    for (const item of items) {
      const before = errors.length;
      if (item.error) errors.push(item.error);
      else {
        const prefix = item.at === '(root)' ? '' : `${item.at}.`;
        for (const e of validateServerJson(item.doc)) errors.push({ field: e.field === '(root)' ? item.at : `${prefix}${e.field}`, message: e.message });
      }
      if (errors.length === before) {
        const doc = item.doc as ServerJson;
        const key = `${doc.name}\u0000${doc.version}`;
        const first = seen.get(key);
        if (first !== undefined) errors.push({ field: item.at, message: `has the same name and version as ${first}` });
        else seen.set(key, item.at);
      }
      if (errors.length > before) refused++;
    }
    if (errors.length) {
      throw new InvalidInputError(`${refused} of ${items.length} servers refused by the server.json schema (2025-12-11); nothing imported`, errors);
    }

    const docs = items.map((i) => i.doc as ServerJson);
    const planned = await planEntryWrites(this.entries, tenantId, items.map((item, i) => ({ doc: docs[i], status: item.status, statusMessage: item.statusMessage ?? null })));
    const inserts = planned.filter((p) => p.outcome === 'added').map((p) => p.write);
    const updates = planned.filter((p) => p.outcome === 'updated').map((p) => p.write);
    const results: ImportItemResultDto[] = items.map((item, i) => ({ at: item.at, name: docs[i].name, version: docs[i].version, outcome: planned[i].outcome, withheld: item.withheld }));
    await this.entries.write(tenantId, inserts, updates);
    const count = (o: string) => results.filter((r) => r.outcome === o).length;
    if (inserts.length || updates.length) {
      await this.audit.record(principal, {
        action: 'catalog.import',
        resourceType: 'catalog',
        resourceId: tenantId ?? 'platform',
        tenantId,
        detail: { format, added: count('added'), updated: count('updated'), unchanged: count('unchanged'), names: [...new Set(docs.map((d) => d.name))].slice(0, 50) },
      });
    }
    return { format, added: count('added'), updated: count('updated'), unchanged: count('unchanged'), items: results };
  }

  /**
   * The caller's whole catalog as one Registry API list page (every status, with the official `_meta`
   * status), which import takes back unchanged. Client-config entries are kept as what import made of them.
   */
  async export(principal: Principal): Promise<{ servers: { server: Record<string, unknown>; _meta: Record<string, unknown> }[]; metadata: { count: number } }> {
    const tenantId = principal.type === 'tenant' ? principal.tenantId : null;
    const all = await this.entries.allOf(tenantId);
    return {
      servers: all.map((e) => ({
        server: e.serverJson,
        _meta: {
          [OFFICIAL_META]: {
            status: e.status,
            ...(e.statusMessage ? { statusMessage: e.statusMessage } : {}),
            publishedAt: e.publishedAt.toISOString(),
            updatedAt: e.updatedAt.toISOString(),
            statusChangedAt: e.statusChangedAt.toISOString(),
            isLatest: e.isLatest,
          },
        },
      })),
      metadata: { count: all.length },
    };
  }
}

