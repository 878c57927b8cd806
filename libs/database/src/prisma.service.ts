import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { PreparedStatements, Sql } from './sql';

export interface DatabaseClients {
  prisma: PrismaClient;
  /** The same pool as Prisma's, for hand-written statements. */
  sql: Sql;
}

/** Creates the process's one pool, with the Prisma client (pg driver adapter) and plain SQL on it. */
export function createDatabaseClients(connectionString: string, poolSize = 10, preparedStatements: PreparedStatements = 'off'): DatabaseClients {
  // A database that does not accept a connection within 5 s is away: the request is answered (503), not held.
  const pool = new Pool({ connectionString, max: poolSize, connectionTimeoutMillis: 5000 });
  // A connection that breaks while idle is dropped by the pool; the next query opens a new one.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  return { prisma, sql: new Sql(pool, preparedStatements) };
}

/** Creates a Prisma client on a pool of its own. */
export function createPrismaClient(connectionString: string, poolSize = 10): PrismaClient {
  return createDatabaseClients(connectionString, poolSize).prisma;
}

export { PrismaClient };
