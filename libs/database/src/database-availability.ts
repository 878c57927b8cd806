import type { Logger } from '@app/observability';

/** Socket errors of a connection that cannot be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOENT']);
/** PostgreSQL's own: connection exceptions (class 08) and the server shutting down or starting (57P01-57P03). */
const SQLSTATE = /^(08\d{3}|57P0[123])$/;
/** Prisma's: cannot reach the server, timed out, closed the connection, no connection from the pool in time. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
const MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Can't reach database server/i,
  /Client has encountered a connection error/i,
  /Connection (is )?closed/i,
  /the database system is (shutting down|starting up)/i,
  /terminating connection due to administrator command/i,
];

/** Whether an error means that PostgreSQL cannot be reached now (rather than a refused or wrong statement). */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown; meta?: unknown; kind?: unknown; originalCode?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (NETWORK_CODES.has(code) || SQLSTATE.test(code) || PRISMA_CODES.has(code))) return true;
  if (typeof e.originalCode === 'string' && SQLSTATE.test(e.originalCode)) return true;
  if (e.kind === 'DatabaseNotReachable' || e.kind === 'ConnectionClosed' || e.kind === 'SocketTimeout') return true;
  if (typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string))) return true;
  if (e.cause && isDatabaseUnavailable(e.cause, depth + 1)) return true;
  const adapter = (e.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  if (adapter && isDatabaseUnavailable(adapter, depth + 1)) return true;
  if (Array.isArray((err as AggregateError).errors)) return (err as AggregateError).errors.some((x) => isDatabaseUnavailable(x, depth + 1));
  return false;
}

/** How often the database is tried while it is away, and how long a client is told to wait. */
export const DATABASE_PROBE_MS = 1000;
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Whether PostgreSQL answers, as the process has seen it: an outage begins with the first failure that means it
 * cannot be reached (logged once, without a stack) and ends when a probe (every second while it is away)
 * answers (logged once, with how long it lasted and how many requests were refused meanwhile).
 */
export class DatabaseAvailability {
  private downSince?: number;
  private refused = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  get down(): boolean {
    return this.downSince !== undefined;
  }

  /**
   * Tells of a failure: true when it means the database is away (the outage is noted, and logged if it begins
   * now), false for any other error (the caller handles it as before).
   */
  failed(err: unknown, refusedRequest = false): boolean {
    if (!isDatabaseUnavailable(err)) return false;
    if (refusedRequest) this.refused++;
    if (this.downSince === undefined) {
      this.downSince = Date.now();
      const e = err as { code?: string; message?: string };
      this.logger.warn(
        { reason: e.code ?? String(e.message ?? err).split('\n')[0] },
        'PostgreSQL does not answer: requests that need it are answered 503 until it does; searches and calls go on from memory',
      );
      this.schedule();
    }
    return true;
  }

  /** A statement succeeded: an outage under way has ended. */
  succeeded(): void {
    if (this.downSince === undefined) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    clearTimeout(this.timer);
    this.logger.info({ downMs, refused: this.refused }, 'PostgreSQL answers again');
    this.refused = 0;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.probe().then(
        () => this.succeeded(),
        () => this.schedule(),
      );
    }, DATABASE_PROBE_MS);
    this.timer.unref();
  }
}
