import { CatalogRepository, CatalogServerRow, CatalogToolRow } from '@app/database';
import { InvalidInputError, isAdmin, parseKind, Principal, ServerKind } from '@app/domain';
import type { SearchToolsInput, SearchToolsResult } from '@app/registry';
import { ToolSearchIndex } from '@app/search';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { CatalogTool } from './catalog-tool';

/** A server whose tools are searchable and callable now. */
export interface CatalogServer {
  readonly id: string;
  readonly name: string;
  readonly kind: ServerKind;
  readonly tenantId: string | null;
  /**
   * Changes every time the server is reloaded (its tools, its connection or its credentials changed), so that
   * pooled sessions keyed by it are never used for a server as it was before the change.
   */
  readonly generation: number;
  /** Fingerprint of how the server is reached (address, headers, credentials). */
  readonly connection: string;
  readonly tools: ReadonlyMap<string, CatalogTool>;
}

/** Whether a reload found the server as it was: then its entry, index slots and pooled sessions stay. */
function unchanged(a: CatalogServer, b: CatalogServer): boolean {
  if (a.name !== b.name || a.kind !== b.kind || a.tenantId !== b.tenantId || a.connection !== b.connection || a.tools.size !== b.tools.size) return false;
  const ta = [...a.tools.values()];
  const tb = [...b.tools.values()];
  return ta.every((t, i) => t.toolName === tb[i].toolName && t.json === tb[i].json);
}

/** How often each replica reads the change feed: a tool discovered anywhere is searchable here within about this. */
export const CATALOG_POLL_MS = 1000;
/** Changes are kept this long; a replica that could not read the feed for longer reloads everything. */
const CHANGE_RETENTION_MS = 60 * 60_000;
const FULL_RELOAD_AFTER_MS = CHANGE_RETENTION_MS / 2;
const PRUNE_EVERY_MS = 60_000;
const RELOAD_BATCH = 500;

/**
 * The tools every replica can search and call, in memory: loaded from PostgreSQL at start in one pass, then
 * kept fresh by polling the catalog change feed (appended by triggers in the writers' own transactions) about
 * once a second, reloading only the servers that changed. A server's tools are here while it is enabled and
 * its last discovery succeeded (CONNECTED, or DISCOVERING again after a success, so that a periodic
 * re-discovery does not hide them); servers in ERROR or disabled are left out.
 */
@Injectable()
export class ToolCatalogService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ToolCatalogService.name);
  private index = new ToolSearchIndex();
  private servers = new Map<string, CatalogServer>();
  private generation = 0;
  private xmin = 0n;
  /** Change ids the last poll returned: the only ones a later poll can return again. */
  private seen = new Set<bigint>();
  private lastPollAt = 0;
  private lastPruneAt = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Reloads run one at a time, so that an older read never overwrites a newer one. */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly listeners: ((serverId: string) => void)[] = [];

  constructor(private readonly repository: CatalogRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.serialized(() => this.loadAll());
    this.schedule();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Calls `listener` with the id of each server reloaded or removed (to drop pooled sessions). */
  onServerChanged(listener: (serverId: string) => void): void {
    this.listeners.push(listener);
  }

  get size(): { servers: number; tools: number } {
    return { servers: this.servers.size, tools: this.index.size };
  }

  /** The best tools for a task among those the caller may see. */
  search(principal: Principal, input: SearchToolsInput): SearchToolsResult {
    const kinds = input.kinds?.map((k) => {
      const kind = parseKind(k);
      if (!kind) throw new InvalidInputError(`kinds: ${String(k)} is not a server kind`, [{ field: 'kinds', message: 'must be server kinds' }]);
      return kind;
    });
    const hits = this.index.search(input.query, {
      limit: input.limit ?? 10,
      kinds,
      serverIds: input.serverIds,
      visible: isAdmin(principal) ? () => true : { tenantId: principal.tenantId },
    });
    return {
      results: hits.map((h) => {
        const tool = h.doc as CatalogTool;
        return { serverId: tool.serverId, serverName: tool.serverName, tool: tool.definition(), score: h.score };
      }),
    };
  }

  /** A live server the caller may see, or undefined. */
  find(principal: Principal, serverId: string): CatalogServer | undefined {
    const server = this.servers.get(serverId);
    if (!server) return undefined;
    if (!isAdmin(principal) && server.tenantId !== null && server.tenantId !== principal.tenantId) return undefined;
    return server;
  }

  /** Reads one server again now (a caller asked for something the catalog does not have yet). */
  async refresh(serverId: string): Promise<void> {
    await this.serialized(() => this.reload([serverId]));
  }

  /** Reads the change feed once and reloads what changed (the poller's step; tests call it to skip the wait). */
  async poll(): Promise<void> {
    await this.serialized(async () => {
      if (this.lastPollAt > 0 && Date.now() - this.lastPollAt > FULL_RELOAD_AFTER_MS) {
        this.logger.warn({ sinceMs: Date.now() - this.lastPollAt }, 'the catalog change feed was not read for long; reloading every tool');
        await this.loadAll();
        return;
      }
      const { changes, xmin } = await this.repository.changesSince(this.xmin);
      const fresh = new Set<string>();
      for (const c of changes) if (!this.seen.has(c.id)) fresh.add(c.serverId);
      if (fresh.size > 0) await this.reload([...fresh]);
      this.seen = new Set(changes.map((c) => c.id));
      this.xmin = xmin;
      this.lastPollAt = Date.now();
    });
    if (Date.now() - this.lastPruneAt > PRUNE_EVERY_MS) {
      this.lastPruneAt = Date.now();
      await this.repository.prune(CHANGE_RETENTION_MS).catch((err: Error) => this.logger.warn({ err: err.message }, 'pruning the catalog change feed failed'));
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.poll()
        .catch((err: Error) => this.logger.warn({ err: err.message }, 'reading the catalog change feed failed; trying again'))
        .finally(() => this.schedule());
    }, CATALOG_POLL_MS);
    this.timer.unref();
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async loadAll(): Promise<void> {
    const started = Date.now();
    const snapshot = await this.repository.loadAll();
    const index = new ToolSearchIndex();
    const servers = new Map<string, CatalogServer>();
    const byServer = groupTools(snapshot.tools);
    for (const row of snapshot.servers) {
      const entry = this.entryOf(row, byServer.get(row.id) ?? []);
      servers.set(row.id, entry);
      CatalogTool.analyse([...entry.tools.values()], () => index.upsertServerTools(row.id, [...entry.tools.values()]));
    }
    const previous = this.servers;
    this.index = index;
    this.servers = servers;
    this.xmin = snapshot.xmin;
    this.seen = new Set();
    this.lastPollAt = Date.now();
    for (const id of previous.keys()) this.notify(id);
    this.logger.log({ servers: servers.size, tools: index.size, ms: Date.now() - started }, 'tool catalog loaded');
  }

  private async reload(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += RELOAD_BATCH) {
      const batch = ids.slice(i, i + RELOAD_BATCH);
      const { servers, tools } = await this.repository.loadServers(batch);
      const rows = new Map(servers.map((s) => [s.id, s]));
      const byServer = groupTools(tools);
      for (const id of batch) {
        const row = rows.get(id);
        const before = this.servers.get(id);
        if (row?.live) {
          const entry = this.entryOf(row, byServer.get(id) ?? []);
          // A re-discovery that found everything as it was changes nothing here (nor the sessions open on it).
          if (before && unchanged(before, entry)) continue;
          const docs = [...entry.tools.values()];
          CatalogTool.analyse(docs, () => this.index.upsertServerTools(id, docs));
          this.servers.set(id, entry);
        } else {
          if (!before) continue;
          this.index.removeServer(id);
          this.servers.delete(id);
        }
        this.notify(id);
      }
    }
  }

  private entryOf(row: CatalogServerRow, tools: CatalogToolRow[]): CatalogServer {
    const map = new Map<string, CatalogTool>();
    for (const t of tools) map.set(t.toolName, new CatalogTool(row.id, row.name, row.kind, row.tenantId, t.toolName, t.definition));
    return { id: row.id, name: row.name, kind: row.kind, tenantId: row.tenantId, generation: ++this.generation, connection: row.connection, tools: map };
  }

  private notify(serverId: string): void {
    for (const l of this.listeners) {
      try {
        l(serverId);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'a catalog listener failed');
      }
    }
  }
}

function groupTools(tools: CatalogToolRow[]): Map<string, CatalogToolRow[]> {
  const out = new Map<string, CatalogToolRow[]>();
  for (const t of tools) {
    let list = out.get(t.serverId);
    if (!list) out.set(t.serverId, (list = []));
    list.push(t);
  }
  return out;
}
