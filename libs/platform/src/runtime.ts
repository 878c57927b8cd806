import { AppConfig } from '@app/config';
import { createDatabaseClients, DatabaseAvailability, PrismaClient, Sql } from '@app/database';
import { EmbeddedPostgres, migrate } from '@app/database-runtime';
import { createLogger, Logger, Metrics } from '@app/observability';
import { QueueConnection } from '@app/queue';
import { Client } from 'pg';
import { ShutdownClock } from './shutdown';

export type Role = 'all' | 'api' | 'worker';

/** What a process owns from start to stop: database, queue connection, metrics, logger. */
export interface Runtime {
  role: Role;
  config: AppConfig;
  logger: Logger;
  databaseUrl: string;
  embedded?: EmbeddedPostgres;
  prisma: PrismaClient;
  /** Plain SQL on Prisma's pool. */
  sql: Sql;
  /** Whether PostgreSQL answers; an outage is logged once as it begins and once as it ends. */
  database: DatabaseAvailability;
  queue: QueueConnection;
  metrics: Metrics;
  /** The stop's bound, shared by everything that finishes work when the process stops. */
  shutdown: ShutdownClock;
  close(): Promise<void>;
}

/** Raised when PostgreSQL cannot be reached at start; names the variable and the cause, never the password. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

async function checkDatabase(url: string, timeoutMs: number): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  const u = new URL(url);
  const where = `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code ?? (err as Error).message.split('\n')[0];
    throw new DatabaseUnavailableError(`DATABASE_URL: cannot reach PostgreSQL at ${where} (${reason})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Brings up the process's resources in order: the database (embedded when no
 * DATABASE_URL), pending migrations, the queue connection. Every failure here
 * is a one-line error for the operator.
 */
export async function startRuntime(role: Role, config: AppConfig, logger = createLogger(config.logLevel, role)): Promise<Runtime> {
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await EmbeddedPostgres.start(`${config.dataDir}`);
    databaseUrl = embedded.url;
    logger.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
  } else {
    await checkDatabase(databaseUrl, 5000);
  }
  let queue: QueueConnection | undefined;
  try {
    // Redis is checked before migrating, so that a wrong REDIS_URL leaves the database untouched.
    queue = new QueueConnection({
      redisUrl: config.redisUrl,
      databaseUrl,
      prefix: config.queuePrefix,
      // Once when Redis goes, once when it is back: not a line per request that could not queue a job.
      onOutage: (e) =>
        e.state === 'down'
          ? logger.warn({ reason: e.reason }, 'Redis does not answer: jobs are not queued by requests (the sweep queues them) until it does')
          : logger.info({ downMs: e.downMs }, 'Redis answers again'),
    });
    await queue.connect();
    const result = await migrate(databaseUrl);
    if (result.applied.length > 0) logger.info({ applied: result.applied }, 'database migrations applied');
    if (embedded && !config.redisUrl) {
      // The embedded server's connections share one session, which ignores per-connection startup options.
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query('SET search_path TO bullmq, public');
      await c.end();
    }
    const prepared = !config.databasePreparedStatements ? 'off' : embedded ? 'shared-session' : 'per-connection';
    const { prisma, sql } = createDatabaseClients(databaseUrl, embedded ? 4 : 10, prepared);
    const metrics = new Metrics();
    const database = new DatabaseAvailability(() => sql.query('SELECT 1'), logger);
    const shutdown = new ShutdownClock(config.shutdownTimeoutMs);
    const connected = queue;
    return {
      role,
      config,
      logger,
      databaseUrl,
      embedded,
      prisma,
      sql,
      database,
      queue,
      metrics,
      shutdown,
      async close() {
        shutdown.begin();
        database.stop();
        await connected.close(shutdown.remainingMs()).catch((err) => logger.warn({ err }, 'queue close failed'));
        await prisma.$disconnect().catch(() => undefined);
        await embedded?.stop();
      },
    };
  } catch (err) {
    await queue?.close(0).catch(() => undefined);
    await embedded?.stop();
    throw err;
  }
}
