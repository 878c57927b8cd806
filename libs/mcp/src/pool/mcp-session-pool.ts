import { classifyError } from '../connection/classify-error';
import { McpFailure, McpFailureCode } from '../connection/mcp-failure';
import { raceAbort } from '../connection/race-abort';
import type { McpSession } from '../connection/mcp-session';

export interface McpSessionPoolOptions {
  /** A session nobody used for this long is closed. */
  idleMs: number;
  /**
   * A session this old takes no new calls and is closed once its calls end: credentials applied at connect
   * time (a Pipedream token, a rotated variable) must not outlive their validity in a busy session.
   */
  maxAgeMs: number;
  /** Above this many sessions, the least recently used idle one is closed to make room. */
  maxSessions: number;
}

export const DEFAULT_POOL_OPTIONS: McpSessionPoolOptions = { idleMs: 60_000, maxAgeMs: 10 * 60_000, maxSessions: 1000 };

interface Entry {
  readonly key: string;
  readonly opening: Promise<McpSession>;
  session?: McpSession;
  readonly openedAt: number;
  lastUsed: number;
  inFlight: number;
  /** Takes no new calls; closed when its last call ends. */
  retired: boolean;
  /** A call on it timed out or its transport failed. */
  broken: boolean;
}

/** How long a broken session stays open (taking no calls) before it is closed. */
const BROKEN_CLOSE_DELAY_MS = 1000;

export interface PoolStats {
  /** Sessions open (or opening) now. */
  sessions: number;
  /** Sessions opened since the pool was made. */
  opened: number;
  /** Sessions closed because a call on them failed in a way that leaves them unusable (a timeout, a transport error). */
  discarded: number;
}

/**
 * Whether a failed call leaves its session unusable. Only an answer from the server (a JSON-RPC error) proves
 * the session still works; after a timeout the server may still be busy with the request, and after a
 * transport error the connection's state is unknown, so the session is never used again.
 */
export function breaksSession(err: unknown): boolean {
  return classifyError(err, 'tools/call').code !== McpFailureCode.RemoteError;
}

/** Whether the failure is a JSON-RPC error the server sent (McpError and the like carry a negative numeric code). */
function answeredWithJsonRpcError(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number' && code < 0) return true;
  }
  return false;
}

/**
 * A failure that proves the request never reached the server's tool: the server no longer knows the session
 * (404, as Streamable HTTP answers for an expired session) or nothing listens any more. Only then is a call
 * on a reused session worth one more try on a new one; a tool may have effects, so nothing else is retried.
 */
function undelivered(err: unknown): boolean {
  // A JSON-RPC error is the server's own answer (the tool may have run), whatever its text says about HTTP.
  if (answeredWithJsonRpcError(err)) return false;
  const f = classifyError(err, 'tools/call');
  return f.httpStatus === 404 || f.code === McpFailureCode.NotFound || f.code === McpFailureCode.ConnectionRefused;
}

/** Rejects at once when the caller's signal aborts (with its reason), whatever `promise` is doing. */
function cancellable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return raceAbort(promise, signal, () => signal?.reason ?? new McpFailure(McpFailureCode.Timeout, 'the call was cancelled'));
}

/**
 * Upstream MCP sessions kept open between calls, one per key (a server and the credentials it is reached
 * with), because a new session per call costs a handshake (tens of milliseconds over HTTP, a process start
 * over stdio). Concurrent calls share a session: MCP multiplexes requests on it. A session is closed when
 * idle, when too old, on shutdown, and at once when a call on it times out or its transport fails.
 */
export class McpSessionPool {
  private readonly entries = new Map<string, Entry>();
  /** Every session not yet closed, retired ones with calls still running included. */
  private readonly live = new Set<Entry>();
  private readonly options: McpSessionPoolOptions;
  private readonly sweeper: NodeJS.Timeout;
  private opened = 0;
  private discarded = 0;
  private closed = false;

  constructor(options: Partial<McpSessionPoolOptions> = {}) {
    this.options = { ...DEFAULT_POOL_OPTIONS, ...options };
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(this.options.idleMs / 2, 10_000)));
    this.sweeper.unref();
  }

  stats(): PoolStats {
    return { sessions: this.entries.size, opened: this.opened, discarded: this.discarded };
  }

  /**
   * Runs `fn` on the session of `key`, opening one with `open` when there is none. A call that fails in a
   * way that breaks the session (see breaksSession) retires it; a reused session that turns out to be gone
   * before the request reached the server is replaced once. `signal` ends the wait for a session being opened.
   */
  async use<T>(key: string, open: () => Promise<McpSession>, fn: (session: McpSession) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) throw new McpFailure(McpFailureCode.DependencyUnavailable, 'the registry is shutting down');
    const first = await this.acquire(key, open, signal);
    try {
      return await this.run(first.entry, fn, signal);
    } catch (err) {
      if (first.fresh || signal?.aborted || !undelivered(err)) throw err;
      const second = await this.acquire(key, open, signal);
      return this.run(second.entry, fn, signal);
    }
  }

  private async run<T>(entry: Entry, fn: (session: McpSession) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let broken = false;
    try {
      return await fn(entry.session!);
    } catch (err) {
      // A caller that went away cancelled its own request; the session itself is fine.
      broken = !signal?.aborted && breaksSession(err);
      throw err;
    } finally {
      this.release(entry, broken);
    }
  }

  private async acquire(key: string, open: () => Promise<McpSession>, signal?: AbortSignal): Promise<{ entry: Entry; fresh: boolean }> {
    const now = Date.now();
    let entry = this.entries.get(key);
    if (entry && now - entry.openedAt > this.options.maxAgeMs) {
      this.retire(entry);
      entry = undefined;
    }
    let fresh = false;
    if (!entry) {
      fresh = true;
      this.makeRoom();
      const created: Entry = {
        key,
        opening: open(),
        openedAt: now,
        lastUsed: now,
        inFlight: 0,
        retired: false,
        broken: false,
      };
      this.opened++;
      this.entries.set(key, created);
      this.live.add(created);
      created.opening.then(
        (session) => {
          created.session = session;
          session.onClose(() => {
            this.forget(created);
            this.live.delete(created);
          });
          if (created.retired && created.inFlight === 0) this.closeSession(created);
        },
        () => {
          this.forget(created);
          this.live.delete(created);
        },
      );
      entry = created;
    } else if (!entry.session) {
      // Opened by a concurrent call a moment ago: as good as a new one.
      fresh = true;
    }
    entry.inFlight++;
    try {
      await cancellable(entry.opening, signal);
    } catch (err) {
      entry.inFlight--;
      throw err;
    }
    return { entry, fresh };
  }

  private release(entry: Entry, broken: boolean): void {
    entry.inFlight--;
    entry.lastUsed = Date.now();
    if (broken) {
      if (!entry.broken) this.discarded++;
      entry.broken = true;
      this.retire(entry);
    } else if (entry.retired && entry.inFlight === 0) {
      this.closeSession(entry);
    }
  }

  /** Takes an entry out of service; its session closes once no call runs on it. */
  private retire(entry: Entry): void {
    entry.retired = true;
    this.forget(entry);
    if (entry.inFlight === 0) this.closeSession(entry);
  }

  private closeSession(entry: Entry): void {
    const session = entry.session;
    if (!session) return;
    if (!entry.broken) {
      void session.close();
      return;
    }
    // The client cancels a timed-out request with a notification sent as it gives up: closing at once could
    // cut that notification off, leaving the server working for nobody. The session takes no calls meanwhile.
    setTimeout(() => void session.close(), BROKEN_CLOSE_DELAY_MS).unref();
  }

  private forget(entry: Entry): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  private makeRoom(): void {
    if (this.entries.size < this.options.maxSessions) return;
    let oldest: Entry | undefined;
    for (const e of this.entries.values()) {
      if (e.inFlight === 0 && e.session && (!oldest || e.lastUsed < oldest.lastUsed)) oldest = e;
    }
    if (oldest) this.retire(oldest);
  }

  private sweep(): void {
    const now = Date.now();
    for (const e of [...this.entries.values()]) {
      if (e.inFlight === 0 && e.session && (now - e.lastUsed > this.options.idleMs || now - e.openedAt > this.options.maxAgeMs)) {
        this.retire(e);
      }
    }
  }

  /** Closes (once their calls end) the sessions whose key starts with `prefix`: a server changed or went away. */
  invalidate(prefix: string): void {
    for (const e of [...this.entries.values()]) if (e.key.startsWith(prefix)) this.retire(e);
  }

  /** Closes every session now, running calls included (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.live];
    this.entries.clear();
    this.live.clear();
    await Promise.all(
      all.map(async (e) => {
        e.retired = true;
        const session = await e.opening.catch(() => undefined);
        await session?.close().catch(() => undefined);
      }),
    );
  }
}
