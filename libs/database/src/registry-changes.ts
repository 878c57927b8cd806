import { Client, Notification } from 'pg';

/** The channel the servers and tools triggers announce every committed change on (see the registry_notify migration). */
export const REGISTRY_CHANGES_CHANNEL = 'registry_changes';

/** One announced change: the server, and its tenant (null: a platform server; undefined: not known any more). */
export interface RegistryChange {
  serverId: string;
  tenantId: string | null | undefined;
}

export function parseRegistryChange(payload: string | undefined): RegistryChange | undefined {
  const [serverId, tenant] = (payload ?? '').split(' ');
  if (!serverId || !tenant) return undefined;
  return { serverId, tenantId: tenant === '-' ? null : tenant === '?' ? undefined : tenant };
}

export interface RegistryChangeHandlers {
  /** A change committed. */
  change(change: RegistryChange): void;
  /** Listening stopped or (re)started: anything derived from earlier reads may have missed changes. */
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
/** How the listening connection shows in pg_stat_activity. */
export const REGISTRY_LISTENER_APPLICATION_NAME = 'mcp-registry change listener';

/**
 * Listens for the registry's committed changes on a connection of its own, and opens it again after a
 * pause when it breaks. `listening` is true only while changes are sure to arrive: whatever is kept from
 * earlier reads may be trusted only then.
 */
export class RegistryChangeListener {
  private client?: Client;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer?: NodeJS.Timeout;
  private heartbeat?: NodeJS.Timeout;
  listening = false;

  constructor(
    private readonly connectionString: string,
    private readonly handlers: RegistryChangeHandlers,
  ) {}

  async start(): Promise<void> {
    await this.open();
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.connectionString,
      application_name: REGISTRY_LISTENER_APPLICATION_NAME,
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
      if (n.channel !== REGISTRY_CHANGES_CHANNEL) return;
      const change = parseRegistryChange(n.payload);
      if (change) this.handlers.change(change);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${REGISTRY_CHANGES_CHANNEL}`);
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
