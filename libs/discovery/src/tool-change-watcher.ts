import { DiscoveryStateRepository } from '@app/database';
import { DiscoveryRequests } from './discovery-requests';
import { connectionFingerprint, connectionOf, ServerRecord, StoredCredentials } from '@app/domain';
import { McpFailure, McpFailureCode, McpSession, PooledHttpTransport, ServerSessions } from '@app/mcp';
import { RUNTIME, Runtime } from '@app/platform';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';

export interface WatchLimits {
  /** Long-lived sessions one worker keeps open at most. */
  maxSessions: number;
  /** Notifications closer together than this start one re-discovery. */
  debounceMs: number;
  /**
   * Notifications in the first moments of a session are ignored: some servers
   * (the reference server among them) add tools right after initialize and
   * announce it, which says nothing new about a listing just made.
   */
  settleMs: number;
  /** How often an idle session is pinged to learn that it died. */
  pingMs: number;
}

export const DEFAULT_WATCH_LIMITS: WatchLimits = { maxSessions: 32, debounceMs: 2000, settleMs: 1000, pingMs: 60_000 };

interface Watch {
  serverId: string;
  /** What the session was opened with: a changed registration opens a new one. */
  fingerprint: string;
  stop: AbortController;
  session?: McpSession;
  openedAt: number;
  /** The discovery of this worker that the watch follows: a later one (by another worker) takes it over. */
  discoveredAt?: Date;
  debounce?: NodeJS.Timeout;
  ping?: NodeJS.Timeout;
}

/**
 * Keeps a session open with servers that declare `tools.listChanged` and turns
 * their `notifications/tools/list_changed` into a (debounced) re-discovery.
 * The number of sessions per worker is bounded; a server beyond the bound is
 * still re-discovered on its schedule. A session that closes or stops
 * answering pings is dropped and opened again after the next discovery.
 */
@Injectable()
export class ToolChangeWatcher implements OnModuleDestroy {
  private readonly watches = new Map<string, Watch>();
  private stopped = false;
  private readonly limits: WatchLimits = DEFAULT_WATCH_LIMITS;

  constructor(
    @Inject(RUNTIME) private readonly runtime: Runtime,
    private readonly sessions: ServerSessions,
    private readonly state: DiscoveryStateRepository,
    private readonly requests: DiscoveryRequests,
  ) {}

  /** How many servers this worker watches now. */
  get size(): number {
    return this.watches.size;
  }

  isWatching(serverId: string): boolean {
    return this.watches.has(serverId);
  }

  /** The servers watched now. */
  watchedIds(): string[] {
    return [...this.watches.keys()];
  }

  /**
   * Starts watching a server on a session its discovery has open already, instead of opening another (one
   * connection, and for stdio one process, fewer); a session that cannot hear the server is left to its caller
   * and the watcher opens one of its own. Does nothing when the server is watched already (with the same
   * registration) or the bound is reached. Returns whether the watcher took the session: when it did not, the
   * caller closes it. Never throws.
   */
  adopt(server: ServerRecord, credentials: StoredCredentials, discoveredAt: Date | undefined, session: McpSession): boolean {
    if (this.stopped) return false;
    const fingerprint = connectionFingerprint(connectionOf(server, credentials));
    const current = this.watches.get(server.id);
    if (current?.fingerprint === fingerprint) {
      current.discoveredAt = discoveredAt ?? current.discoveredAt;
      return false;
    }
    if (current) this.drop(current);
    if (this.watches.size >= this.limits.maxSessions) {
      this.runtime.logger.debug({ serverId: server.id, max: this.limits.maxSessions }, 'tool change watch not opened: the bound is reached');
      return false;
    }
    const watch: Watch = { serverId: server.id, fingerprint, stop: new AbortController(), openedAt: Date.now(), discoveredAt };
    this.watches.set(server.id, watch);
    const failed = (err: unknown) => {
      this.runtime.logger.debug({ serverId: server.id, err: (err as Error).message }, 'tool change watch could not be opened');
      this.drop(watch);
    };
    if (session.canListen) {
      this.listen(watch, session).catch(failed);
      return true;
    }
    this.open(watch, server, credentials).catch(failed);
    return false;
  }

  unwatch(serverId: string): void {
    const watch = this.watches.get(serverId);
    if (watch) this.drop(watch);
  }

  private async open(watch: Watch, server: ServerRecord, credentials: StoredCredentials): Promise<void> {
    const timeoutMs = this.runtime.config.discovery.timeoutMs;
    const connectDeadline = AbortSignal.any([watch.stop.signal, AbortSignal.timeout(timeoutMs)]);
    const { session } = await this.sessions.open(server, credentials, () => ({
      signal: connectDeadline,
      requestTimeoutMs: timeoutMs,
      lastProtocolVersion: server.protocolVersion,
      // Node's own HTTP client, as discoveries use: a watch's connect costs a third of what it costs through fetch.
      streamableHttpTransport: (t) => new PooledHttpTransport(t.url, { headers: t.headers, lookup: t.lookup }),
    }));
    if (watch.stop.signal.aborted || this.watches.get(server.id) !== watch) {
      await session.close();
      return;
    }
    await this.listen(watch, session);
  }

  /** Listens on the watch's session for list_changed, and pings it to learn when it dies. */
  private async listen(watch: Watch, session: McpSession): Promise<void> {
    const timeoutMs = this.runtime.config.discovery.timeoutMs;
    watch.session = session;
    watch.openedAt = Date.now();
    session.onClose(() => this.drop(watch));
    // The subscription lives as long as the watch: its signal is the watch's, not the connect deadline.
    await session.watchToolListChanged(() => this.notified(watch), { signal: watch.stop.signal, timeoutMs });
    if (watch.stop.signal.aborted) return;
    watch.ping = setInterval(() => {
      session.request('ping', undefined, { timeoutMs: Math.min(timeoutMs, 10_000) }).catch(() => this.drop(watch));
      void this.handedOver(watch).catch(() => undefined);
    }, this.limits.pingMs);
    watch.ping.unref();
    this.runtime.logger.debug({ serverId: watch.serverId, watching: this.watches.size }, 'watching for tool list changes');
  }

  /**
   * One watch per server across the workers: the worker that discovered the server last watches it. A watch
   * whose server another worker has discovered since is dropped (that worker watches it now, if it should).
   * Returns whether it was dropped.
   */
  private async handedOver(watch: Watch): Promise<boolean> {
    if (!watch.discoveredAt) return false;
    const latest = await this.state.lastDiscoveredAt(watch.serverId);
    if (!latest || latest.getTime() <= watch.discoveredAt.getTime() || this.watches.get(watch.serverId) !== watch) return false;
    this.runtime.logger.debug({ serverId: watch.serverId }, 'tool change watch handed over: another worker discovered the server since');
    this.drop(watch);
    return true;
  }

  /** Checks every watch for a later discovery by another worker now (the ping does it periodically). */
  async handOver(): Promise<void> {
    await Promise.all([...this.watches.values()].map((w) => this.handedOver(w).catch(() => false)));
  }

  private notified(watch: Watch): void {
    if (Date.now() - watch.openedAt < this.limits.settleMs) return;
    if (watch.debounce) clearTimeout(watch.debounce);
    watch.debounce = setTimeout(() => {
      watch.debounce = undefined;
      void this.requestRediscovery(watch.serverId);
    }, this.limits.debounceMs);
    watch.debounce.unref();
  }

  private async requestRediscovery(serverId: string): Promise<void> {
    try {
      if ((await this.requests.request([serverId], 'list-changed')).size === 0) {
        // Deleted or disabled since: nothing to watch any more.
        this.unwatch(serverId);
        return;
      }
      this.runtime.logger.info({ serverId }, 'tool list changed: re-discovery asked for');
    } catch (err) {
      this.runtime.logger.warn({ serverId, err: (err as Error).message }, 'tool list changed, but the re-discovery could not be asked for');
    }
  }

  private drop(watch: Watch): void {
    if (this.watches.get(watch.serverId) === watch) this.watches.delete(watch.serverId);
    clearTimeout(watch.debounce);
    clearInterval(watch.ping);
    watch.stop.abort(new McpFailure(McpFailureCode.Timeout, 'the watch was stopped'));
    void watch.session?.close().catch(() => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    const sessions = [...this.watches.values()].map((w) => w.session);
    for (const w of [...this.watches.values()]) this.drop(w);
    await Promise.all(sessions.map((s) => s?.close().catch(() => undefined)));
  }
}
