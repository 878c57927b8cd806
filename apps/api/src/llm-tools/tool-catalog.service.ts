import { CatalogRepository, CatalogServerRow, CatalogToolRow, ChangeFeed, FeedChange } from '@app/database';
import { RUNTIME, Runtime } from '@app/platform';
import { maySee, parseKinds, Principal, REQUEST_LIMITS, ServerKind, ToolDefinition } from '@app/domain';
import type { SearchToolsInput, SearchToolsResult } from '@app/mcp-server';
import { ToolSearchIndex } from '@app/search';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, Optional } from '@nestjs/common';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { LocalServerChanges } from '../common/local-server-changes';
import { AnalysedTool, analysedTool, CatalogTool, retainTool } from './catalog-tool';

/** A server whose tools are searchable and callable now. */
export interface CatalogServer {
  readonly id: string;
  readonly name: string;
  readonly selfName: string | null;
  /** The opening of its instructions, indexed as context for its tools. */
  readonly instructions: string | null;
  readonly kind: ServerKind;
  readonly tenantId: string | null;
  /**
   * Changes every time the server is reloaded with something changed (its tools, its connection or its
   * credentials), so that pooled sessions and cached definitions keyed by it never outlive the change.
   */
  readonly generation: number;
  /** Fingerprint of how the server is reached (address, headers, credentials). */
  readonly connection: string;
  /** Fingerprint of its tool definitions. */
  readonly toolsHash: string;
  readonly tools: ReadonlyMap<string, CatalogTool>;
}

/** A load that failed is tried again after this. */
const RELOAD_RETRY_MS = 1000;
/** Servers read per query, at start and when many changed at once: bounds what a load holds at a time. */
const PAGE_SERVERS = 100;
/** How long the start waits for the catalog before listening anyway. */
const START_WAIT_MS = 1000;
/** Definitions of recently returned tools kept at hand, as JSON text. */
const DEFINITION_CACHE = 5000;

/** Whether a reload found the server as it was: then its entry, index slots and pooled sessions stay. */
function unchanged(a: CatalogServer, b: CatalogServer): boolean {
  return a.name === b.name && a.selfName === b.selfName && a.instructions === b.instructions && a.kind === b.kind && a.tenantId === b.tenantId && a.connection === b.connection && a.toolsHash === b.toolsHash;
}

/**
 * The tools every replica can search and call, in memory: loaded from PostgreSQL at start page by page
 * (without holding up the start: searches and calls wait for it), then kept fresh by the change feed (see
 * ChangeFeed: within milliseconds of each commit), reloading only the servers that changed. The index keeps each tool's identity only; the definitions of the tools a search
 * returns are read back from PostgreSQL (and the most recent kept at hand), so 100,000 tools cost tens of
 * megabytes. A server's tools are here while it is enabled and its last discovery succeeded (CONNECTED, or
 * DISCOVERING again after a success, so that a periodic re-discovery does not hide them); servers in ERROR
 * or disabled are left out.
 */
@Injectable()
export class ToolCatalogService implements OnApplicationBootstrap, OnModuleDestroy, LocalServerChanges {
  private readonly logger = new Logger(ToolCatalogService.name);
  private index = ToolCatalogService.newIndex();
  private servers = new Map<string, CatalogServer>();
  private generation = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private unsubscribe?: () => void;
  /** Reloads run one at a time, so that an older read never overwrites a newer one. */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly listeners: ((serverId: string) => void)[] = [];
  private readonly definitionCache = new Map<string, string>();
  /** Settles when the start-up load has finished. */
  private loaded: Promise<void> = Promise.resolve();
  /** Whether a whole load has succeeded (readiness). */
  private complete = false;
  /** Set while a whole load runs: servers changed through this process meanwhile, read again before it is swapped in. */
  private changedDuringLoad?: Set<string>;

  constructor(
    private readonly repository: CatalogRepository,
    private readonly feed: ChangeFeed,
    @Optional() @Inject(RUNTIME) private readonly runtime?: Runtime,
  ) {}

  private static newIndex(): ToolSearchIndex {
    return new ToolSearchIndex({ retain: retainTool });
  }

  async onApplicationBootstrap(): Promise<void> {
    // The feed was started before this (onModuleInit): every change committed after the load's reads is delivered.
    this.unsubscribe = this.feed.subscribe({ changes: (changes) => this.changesCommitted(changes), gap: () => this.loadAgain() });
    this.loaded = this.load();
    // A small catalog is loaded before the process starts listening; a large one goes on in the background
    // (readiness says when it is done, and searches and calls wait for it).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.loaded, new Promise<void>((r) => (timer = setTimeout(r, START_WAIT_MS)))]);
    clearTimeout(timer);
  }

  onModuleDestroy(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
  }

  /** A whole load; one that fails is tried again a second later until one succeeds. */
  private load(): Promise<void> {
    return this.serialized(() => this.loadAll()).catch((err: Error) => {
      if (!this.runtime?.database.failed(err)) this.logger.error({ err: err.message }, 'the tool catalog could not be loaded; trying again');
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.load(), RELOAD_RETRY_MS);
      this.timer.unref();
    });
  }

  /** The feed may have missed changes: everything is read again (searches keep the current catalog meanwhile). */
  private loadAgain(): void {
    void this.load();
  }

  /**
   * Servers changed somewhere: those whose registration, status or tools changed are read again (a change of
   * their discovery rows alone, the lease, the schedule or a retry's reason, changes nothing here). During a whole load the load reads them again itself, so the feed
   * is not held up by it.
   */
  private async changesCommitted(changes: FeedChange[]): Promise<void> {
    const ids = changes.filter((c) => !c.bookkeeping).map((c) => c.serverId);
    if (ids.length === 0) return;
    if (this.changedDuringLoad) {
      for (const id of ids) this.changedDuringLoad.add(id);
      return;
    }
    await this.serialized(() => this.reload(ids));
  }

  /** Resolves once the start-up load is done (at once afterwards). */
  ready(): Promise<void> {
    return this.loaded;
  }

  /** Whether the catalog holds every tool: the process is not ready for traffic before. */
  isLoaded(): boolean {
    return this.complete;
  }

  /** Calls `listener` with the id of each server reloaded with changes, or removed (to drop pooled sessions). */
  onServerChanged(listener: (serverId: string) => void): void {
    this.listeners.push(listener);
  }

  get size(): { servers: number; tools: number } {
    return { servers: this.servers.size, tools: this.index.size };
  }

  /** The best tools for a task among those the caller may see, with their definitions ready for a model. */
  async search(principal: Principal, input: SearchToolsInput): Promise<SearchToolsResult> {
    const kinds = parseKinds(input.kinds);
    await this.loaded;
    const hits = this.index.search(input.query, {
      limit: input.limit ?? REQUEST_LIMITS.searchLimitDefault,
      kinds,
      serverIds: input.serverIds,
      visible: principal,
    });
    const definitions = await this.definitionsOf(hits.map((h) => h.doc as CatalogTool));
    const results: SearchToolsResult['results'] = [];
    hits.forEach((h, i) => {
      const tool = definitions[i];
      // A tool removed since the index last heard of it is left out; the change feed is catching up.
      if (tool) results.push({ serverId: h.doc.serverId, serverName: h.doc.serverName, tool, score: h.score, confidence: h.confidence });
    });
    return { results };
  }

  /** A live server the caller may see, or undefined. */
  find(principal: Principal, serverId: string): CatalogServer | undefined {
    const server = this.servers.get(serverId);
    if (!server) return undefined;
    if (!maySee(principal, server.tenantId)) return undefined;
    return server;
  }

  /** Reads one server again now (a caller asked for something the catalog does not have yet). */
  async refresh(serverId: string): Promise<void> {
    await this.serialized(() => this.reload([serverId]));
  }

  /**
   * A change made through this process, before it is answered: a withdrawn server (disabled, deleted) leaves
   * the index and its sessions at once; then the server is read again after whatever reload is under way, so
   * that a read of before the change cannot put it back. During a whole load the load reads it again itself.
   */
  async serverChanged(serverId: string, { withdrawn }: { withdrawn: boolean }): Promise<void> {
    if (withdrawn) this.withdraw(serverId);
    if (this.changedDuringLoad) {
      this.changedDuringLoad.add(serverId);
      return;
    }
    await this.serialized(async () => {
      if (withdrawn) this.withdraw(serverId);
      await this.reload([serverId]);
    }).catch((err: Error) => this.logger.warn({ serverId, err: err.message }, 'a changed server could not be read again; the change feed will bring it'));
  }

  private withdraw(serverId: string): void {
    if (!this.servers.has(serverId)) return;
    this.index.removeServer(serverId);
    this.servers.delete(serverId);
    this.notify(serverId);
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** The definitions of some tools, from the cache or PostgreSQL, in their order (undefined for a tool gone). */
  private async definitionsOf(tools: CatalogTool[]): Promise<(ToolDefinition | undefined)[]> {
    const keys = tools.map((t) => `${t.serverId}\u0000${this.servers.get(t.serverId)?.generation ?? 0}\u0000${t.toolName}`);
    const texts: (string | undefined)[] = keys.map((k) => this.definitionCache.get(k));
    const missing = tools.filter((_, i) => texts[i] === undefined);
    if (missing.length > 0) {
      const rows = await this.repository.definitions(missing.map((t) => ({ serverId: t.serverId, toolName: t.toolName })));
      const byKey = new Map(rows.map((r) => [`${r.serverId}\u0000${r.toolName}`, r.definition]));
      tools.forEach((t, i) => {
        if (texts[i] !== undefined) return;
        texts[i] = byKey.get(`${t.serverId}\u0000${t.toolName}`);
        if (texts[i] !== undefined) this.remember(keys[i], texts[i]);
      });
    }
    return texts.map((text) => (text === undefined ? undefined : (JSON.parse(text) as ToolDefinition)));
  }

  private remember(key: string, text: string): void {
    this.definitionCache.delete(key);
    this.definitionCache.set(key, text);
    if (this.definitionCache.size > DEFINITION_CACHE) this.definitionCache.delete(this.definitionCache.keys().next().value as string);
  }

  private async loadAll(): Promise<void> {
    const started = Date.now();
    const index = ToolCatalogService.newIndex();
    const servers = new Map<string, CatalogServer>();
    const changedHere = (this.changedDuringLoad = new Set<string>());
    try {
      await this.loadPages(index, servers);
      // Servers changed through this process while the pages were read are read again; the last check and the
      // swap below run without a pause, so no change is answered in between.
      while (changedHere.size > 0) {
        const ids = [...changedHere];
        changedHere.clear();
        await this.reload(ids, { index, servers, notify: false });
      }
    } finally {
      this.changedDuringLoad = undefined;
    }
    const previous = this.servers;
    this.index = index;
    this.servers = servers;
    this.definitionCache.clear();
    this.complete = true;
    for (const id of previous.keys()) this.notify(id);
    this.logger.log({ servers: servers.size, tools: index.size, ms: Date.now() - started }, 'tool catalog loaded');
  }

  private async loadPages(index: ToolSearchIndex, servers: Map<string, CatalogServer>): Promise<void> {
    // The next page is read while this one is indexed.
    let next = this.repository.loadPage(null, PAGE_SERVERS);
    for (;;) {
      const page = await next;
      if (page.servers.length === 0) break;
      next = this.repository.loadPage(page.servers[page.servers.length - 1].id, PAGE_SERVERS);
      // A failure of the read ahead surfaces when it is awaited, not as an unhandled rejection meanwhile.
      next.catch(() => undefined);
      const byServer = groupTools(page.tools);
      for (const row of page.servers) {
        const { entry, analysed } = this.entryOf(row, byServer.get(row.id) ?? []);
        servers.set(row.id, entry);
        index.upsertServerTools(row.id, analysed);
      }
      // Searches and calls keep being answered (they wait for the load, the rest of the API does not).
      await yieldToEventLoop();
    }
  }

  /** Reads some servers again into the live catalog (or into one being loaded, `into`). */
  private async reload(
    ids: string[],
    into: { index: ToolSearchIndex; servers: Map<string, CatalogServer>; notify: boolean } = { index: this.index, servers: this.servers, notify: true },
  ): Promise<void> {
    for (let i = 0; i < ids.length; i += PAGE_SERVERS) {
      const batch = ids.slice(i, i + PAGE_SERVERS);
      const { servers, tools } = await this.repository.loadServers(batch);
      const rows = new Map(servers.map((s) => [s.id, s]));
      const byServer = groupTools(tools);
      for (const id of batch) {
        const row = rows.get(id);
        const before = into.servers.get(id);
        if (row?.live) {
          const { entry, analysed } = this.entryOf(row, byServer.get(id) ?? []);
          // A re-discovery that found everything as it was changes nothing here (nor the sessions open on it).
          if (before && unchanged(before, entry)) continue;
          into.index.upsertServerTools(id, analysed);
          into.servers.set(id, entry);
        } else {
          if (!before) continue;
          into.index.removeServer(id);
          into.servers.delete(id);
        }
        if (into.notify) this.notify(id);
      }
    }
  }

  private entryOf(row: CatalogServerRow, tools: CatalogToolRow[]): { entry: CatalogServer; analysed: AnalysedTool[] } {
    const map = new Map<string, CatalogTool>();
    const analysed: AnalysedTool[] = [];
    for (const t of tools) {
      const tool = new CatalogTool(row.id, row.name, row.kind, row.tenantId, t.toolName);
      map.set(t.toolName, tool);
      analysed.push(analysedTool(tool, t, row.selfName, row.instructions));
    }
    const entry: CatalogServer = {
      id: row.id,
      name: row.name,
      selfName: row.selfName,
      instructions: row.instructions,
      kind: row.kind,
      tenantId: row.tenantId,
      generation: ++this.generation,
      connection: row.connection,
      toolsHash: row.toolsHash,
      tools: map,
    };
    return { entry, analysed };
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
