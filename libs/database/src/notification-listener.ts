import { Client, Notification } from 'pg';

export interface NotificationHandlers {
  /** A notification arrived on the channel (its payload). */
  notified(payload: string): void;
  /** Listening stopped or (re)started: anything derived from earlier notifications may have missed some. */
  reset(listening: boolean): void;
  /** The listening connection failed (it is opened again after a pause). */
  error(err: Error): void;
}

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;
/**
 * A listening connection receives without ever sending, so a connection lost without a reset (a NAT or load
 * balancer forgetting it, a host gone) would look alive: it is asked a trivial question this often, and one
 * not answered within the timeout counts as lost.
 */
const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
/** How the change feed's listening connection shows in pg_stat_activity. */
export const CHANGE_LISTENER_APPLICATION_NAME = 'mcp-registry change listener';

/**
 * Listens on one channel on a connection of its own, and opens it again after a pause when it breaks.
 * `listening` is true only while notifications are sure to arrive.
 */
export class NotificationListener {
  private client?: Client;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  listening = false;

  constructor(
    private readonly connectionString: string,
    /** A channel name as PostgreSQL folds it (lower case, no quoting needed). */
    private readonly channel: string,
    private readonly handlers: NotificationHandlers,
    private readonly applicationName = CHANGE_LISTENER_APPLICATION_NAME,
  ) {}

  async start(): Promise<void> {
    await this.open();
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.connectionString,
      application_name: this.applicationName,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 10_000,
    });
    this.client = client;
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      clearInterval(this.heartbeat);
      if (this.listening) {
        this.listening = false;
        this.handlers.reset(false);
      }
      if (err) this.handlers.error(err);
      void client.end().catch(() => undefined);
      this.retry();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n: Notification) => {
      if (n.channel === this.channel) this.handlers.notified(n.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    if (this.client !== client || this.stopped) return;
    this.retryMs = RETRY_MIN_MS;
    this.listening = true;
    this.handlers.reset(true);
    this.heartbeat = setInterval(() => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the listening connection did not answer within ${HEARTBEAT_TIMEOUT_MS} ms`)), HEARTBEAT_TIMEOUT_MS);
      });
      Promise.race([client.query('SELECT 1'), late])
        .catch((err: Error) => lost(err))
        .finally(() => clearTimeout(timer));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private retry(): void {
    if (this.stopped) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.timer = setTimeout(() => void this.open(), wait);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    this.listening = false;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
