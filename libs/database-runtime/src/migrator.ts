import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from 'pg';

/** An applied migration whose file no longer matches what was applied: the process must not start. */
export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/** Finds prisma/migrations by walking up from this file (works from src and from dist). */
export function findMigrationsDir(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'prisma', 'migrations');
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new MigrationError('prisma/migrations was not found');
    dir = parent;
  }
}

export function readMigrations(dir: string = findMigrationsDir()): MigrationFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

// The table Prisma Migrate keeps, column for column, so `prisma migrate deploy` agrees with us.
const MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

// Any constant shared by every process of this product; the advisory lock serialises migrators.
const MIGRATION_LOCK_KEY = 72707369;

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

/**
 * Applies pending migrations in order, each in its own transaction, under a
 * session advisory lock so that processes starting together migrate once.
 * Refuses to go on when an applied migration's file was changed, or when a
 * previous attempt failed half-way (as Prisma Migrate does).
 */
export async function migrate(connectionString: string, migrations: MigrationFile[] = readMigrations()): Promise<MigrateResult> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(MIGRATIONS_TABLE);
      const { rows } = await client.query<{
        migration_name: string;
        checksum: string;
        finished_at: Date | null;
        rolled_back_at: Date | null;
      }>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at');
      const applied = new Map<string, string>();
      for (const row of rows) {
        if (row.rolled_back_at) continue;
        if (!row.finished_at) {
          throw new MigrationError(
            `migration ${row.migration_name} failed earlier and is marked unfinished; resolve it before starting`,
          );
        }
        applied.set(row.migration_name, row.checksum);
      }
      for (const m of migrations) {
        const checksum = applied.get(m.name);
        if (checksum !== undefined && checksum !== m.checksum) {
          throw new MigrationError(`migration ${m.name} was changed after it was applied (checksum differs); refusing to start`);
        }
      }
      const result: MigrateResult = { applied: [], alreadyApplied: applied.size };
      for (const m of migrations) {
        if (applied.has(m.name)) continue;
        const id = randomUUID();
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
             VALUES ($1, $2, $3, now(), now(), 1)`,
            [id, m.checksum, m.name],
          );
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new MigrationError(`migration ${m.name} failed: ${(err as Error).message}`);
        }
        result.applied.push(m.name);
      }
      return result;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
