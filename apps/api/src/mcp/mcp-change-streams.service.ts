import { Principal, viewerTenant } from '@app/domain';
import type { McpServerDefinition } from '@app/mcp-server';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { ToolCatalogService } from '../llm-tools/tool-catalog.service';

/** A route of the MCP endpoint: which server definition a caller sees there. */
export interface McpRoute {
  /**
   * Names the route (`/mcp`, `/mcp/v/{id}`), in logs too: routes of one name build the same definition for the
   * same caller.
   */
  readonly name: string;
  /**
   * The definition for this caller. May throw a domain error (NotFoundError: 404) before any MCP is spoken. Its
   * lists depend on what the caller may see, which is decided by its tenant (the visibility rule): the change
   * streams of one route and one viewer share one reading of them.
   */
  definitionFor(principal: Principal): McpServerDefinition | Promise<McpServerDefinition>;
}

export type ListKind = 'tools' | 'resources' | 'prompts';
const LIST_KINDS: ListKind[] = ['tools', 'resources', 'prompts'];
type Fingerprints = Partial<Record<ListKind, string>>;

/** A client waiting to hear that a list it sees changed: a 2025-era GET stream or a 2026-07-28 subscriptions/listen. */
interface OpenStream {
  route: McpRoute;
  principal: Principal;
  last?: Promise<Fingerprints>;
  send(kind: ListKind): void;
}

/** The request being served by the 2026-07-28 handler, so that a listen stream it opens knows whom it serves. */
export interface ModernRequestScope {
  route: McpRoute;
  principal: Principal;
  definition: McpServerDefinition;
}

/** Open streams one replica holds at most; a client over it is told to come back later. */
export const MAX_CHANGE_STREAMS = 1000;
/** Changes arriving within this window are checked once. */
const RECHECK_DEBOUNCE_MS = 100;
/** Routes and viewers checked at once after a change. */
const RECHECK_CONCURRENCY = 8;

const EVENT_OF: Record<ListKind, ServerEvent['kind']> = {
  tools: 'tools_list_changed',
  resources: 'resources_list_changed',
  prompts: 'prompts_list_changed',
};

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');

/** What a caller sees in each list of a definition, as a digest (the first page of resources). */
async function fingerprintsOf(def: McpServerDefinition): Promise<Fingerprints> {
  const [tools, resources, templates, prompts] = await Promise.all([
    def.tools?.list(),
    def.resources?.list(undefined),
    def.resources?.templates(),
    def.prompts?.list(),
  ]);
  return {
    ...(tools ? { tools: hash(tools) } : {}),
    ...(resources ? { resources: hash([resources, templates]) } : {}),
    ...(prompts ? { prompts: hash(prompts) } : {}),
  };
}

/**
 * The change notifications of every MCP route, with no session: each open stream (a 2025-era standalone GET
 * stream, a 2026-07-28 subscriptions/listen) is held by the replica it landed on, remembers a digest of the
 * lists its caller sees, and after each change this replica learns from the catalog change feed (any
 * replica's writes, through PostgreSQL) the lists are read again, once for all the streams of one route and
 * one viewer: a list whose digest differs from what a stream last heard is announced on it. A route whose
 * definitions change for reasons the catalog does not carry (a virtual server's own definition) has
 * `recheck(name)` called when they do.
 */
@Injectable()
export class McpChangeStreams implements OnModuleDestroy {
  private readonly logger = new Logger(McpChangeStreams.name);
  private readonly streams = new Set<OpenStream>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** What the next check reads: every route, or the routes named. */
  private pendingAll = false;
  private readonly pendingRoutes = new Set<string>();
  readonly modernScope = new AsyncLocalStorage<ModernRequestScope>();

  /** The change-event bus of the 2026-07-28 handler: each listen stream subscribes with the scope of its request. */
  readonly bus: ServerEventBus = {
    // Events are made per stream below; nothing publishes to every stream at once.
    publish: () => undefined,
    subscribe: (listener) => {
      const scope = this.modernScope.getStore();
      if (!scope) return () => undefined;
      return this.open(scope.route, scope.principal, (kind) => listener({ kind: EVENT_OF[kind] } as ServerEvent), scope.definition);
    },
  };

  constructor(catalog: ToolCatalogService) {
    catalog.onServerChanged(() => this.recheck());
  }

  onModuleDestroy(): void {
    clearTimeout(this.timer);
    this.streams.clear();
  }

  get size(): number {
    return this.streams.size;
  }

  hasRoom(): boolean {
    return this.streams.size < MAX_CHANGE_STREAMS;
  }

  /** Holds a stream until the returned function is called; `send` is called with each list that changed for it. */
  open(route: McpRoute, principal: Principal, send: (kind: ListKind) => void, definition?: McpServerDefinition): () => void {
    const stream: OpenStream = { route, principal, send };
    stream.last = this.fingerprint(stream, definition);
    this.streams.add(stream);
    return () => this.streams.delete(stream);
  }

  /**
   * Reads the lists of every open stream again soon (of the streams of one route only, given its name), and
   * announces those that changed. Asked again while a check runs, the next check follows it.
   */
  recheck(routeName?: string): void {
    if (this.streams.size === 0) return;
    if (routeName === undefined) this.pendingAll = true;
    else this.pendingRoutes.add(routeName);
    this.schedule();
  }

  private schedule(): void {
    // A check under way schedules the next itself when it ends.
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const routes = this.pendingAll ? undefined : new Set(this.pendingRoutes);
      this.pendingAll = false;
      this.pendingRoutes.clear();
      this.running = this.checkAll(routes).finally(() => {
        this.running = undefined;
        if (this.pendingAll || this.pendingRoutes.size > 0) this.schedule();
      });
    }, RECHECK_DEBOUNCE_MS);
    this.timer.unref();
  }

  /** Settles when the checks under way (and any queued) are done: for tests and shutdown. */
  async settled(): Promise<void> {
    while (this.timer || this.running) await (this.running ?? new Promise((r) => setTimeout(r, RECHECK_DEBOUNCE_MS)));
  }

  private async fingerprint(stream: OpenStream, definition?: McpServerDefinition): Promise<Fingerprints> {
    try {
      return await fingerprintsOf(definition ?? (await stream.route.definitionFor(stream.principal)));
    } catch (err) {
      // A route gone for this caller (a deleted virtual server, a revoked scope) has empty lists now.
      this.logger.debug({ route: stream.route.name, err: (err as Error).message }, 'an MCP route could not be read for a change stream');
      return {};
    }
  }

  /** The open streams (of these routes, else of all) by route and viewer: each group's lists are read once per change. */
  private groups(routes?: Set<string>): OpenStream[][] {
    const groups = new Map<string, OpenStream[]>();
    for (const stream of this.streams) {
      if (routes && !routes.has(stream.route.name)) continue;
      const key = `${stream.route.name}\u0000${viewerTenant(stream.principal) ?? 'admin'}`;
      const group = groups.get(key);
      if (group) group.push(stream);
      else groups.set(key, [stream]);
    }
    return [...groups.values()];
  }

  private async checkAll(routes?: Set<string>): Promise<void> {
    const queue = this.groups(routes);
    const worker = async () => {
      for (let g = queue.shift(); g; g = queue.shift()) await this.check(g);
    };
    await Promise.all(Array.from({ length: RECHECK_CONCURRENCY }, worker));
  }

  /** Reads the lists of one route for one viewer and tells each of its streams those that differ from what it last heard. */
  private async check(group: OpenStream[]): Promise<void> {
    const befores = await Promise.all(group.map((s) => s.last));
    const next = this.fingerprint(group[0]);
    for (const stream of group) stream.last = next;
    const after = await next;
    group.forEach((stream, i) => {
      const before = befores[i];
      if (!this.streams.has(stream) || !before) return;
      for (const kind of LIST_KINDS) {
        if ((before[kind] !== undefined || after[kind] !== undefined) && before[kind] !== after[kind]) {
          try {
            stream.send(kind);
          } catch (err) {
            this.logger.warn({ route: stream.route.name, err: (err as Error).message }, 'a change notification could not be sent');
          }
        }
      }
    });
  }
}
