import { EmbeddedPostgres, migrate } from '@app/database-runtime';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { runDatabasePrefix } from '../support/database';
import type { Keep } from '../support/stand';

export interface ScratchDatabase {
  url: string;
  /** True on the embedded fallback (PGlite): one session for every connection, advisory locks not exclusive. */
  embedded: boolean;
  drop(): Promise<void>;
}

/**
 * An empty database (no migrations applied): a new database on the machine's PostgreSQL, or an embedded
 * PostgreSQL of its own where none answers. Named with this run's prefix so that the global teardown drops
 * it if a test file dies before dropping it.
 */
export async function createEmptyDatabase(): Promise<ScratchDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const dir = mkdtempSync(join(tmpdir(), 'mcpr-scratch-'));
    const embedded = await EmbeddedPostgres.start(dir);
    return {
      url: embedded.url,
      embedded: true,
      async drop() {
        await embedded.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `${runDatabasePrefix()}${randomBytes(6).toString('hex')}`;
  await adminQuery(base, `CREATE DATABASE ${name}`);
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    embedded: false,
    drop: () => adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Runs `fn` with a connected client, closing it after. */
export async function withClient<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A scratch database with every migration applied and a pool of `max` connections on it, both kept by a stand:
 * the pool is ended and the database dropped after the describe's tests.
 */
export async function migratedDatabase(keep: Keep, max: number): Promise<{ db: ScratchDatabase; pool: Pool }> {
  const db = keep(await createEmptyDatabase(), (d) => d.drop());
  await migrate(db.url);
  const pool = keep(new Pool({ connectionString: db.url, max }), (p) => p.end());
  return { db, pool };
}
