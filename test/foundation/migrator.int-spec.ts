import { findMigrationsDir, migrate, MigrationError, MigrationFile, readMigrations } from '@app/database-runtime';
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmptyDatabase, ScratchDatabase, withClient } from './scratch-database';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function extra(name: string, sql: string): MigrationFile {
  return { name, sql, checksum: sha256(sql) };
}

interface LedgerRow {
  id: string;
  checksum: string;
  migration_name: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}

const ledger = (url: string) =>
  withClient(url, async (c) => (await c.query<LedgerRow>('SELECT * FROM "_prisma_migrations" ORDER BY migration_name')).rows);

const tableExists = (url: string, name: string) =>
  withClient(url, async (c) => (await c.query('SELECT to_regclass($1) AS t', [`public.${name}`])).rows[0].t !== null);

/** The committed migrations, read straight from disk (not through the migrator under test). */
function committedMigrations(): { name: string; checksum: string }[] {
  const dir = findMigrationsDir();
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name, checksum: sha256(readFileSync(join(dir, name, 'migration.sql'), 'utf8')) }));
}

describe('migrations at start', () => {
  const databases: ScratchDatabase[] = [];
  const fresh = async () => {
    const db = await createEmptyDatabase();
    databases.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of databases) await db.drop();
  });

  it("applies the pending migrations in order and records each in _prisma_migrations as Prisma Migrate does", async () => {
    const db = await fresh();
    const committed = committedMigrations();
    expect(committed.length).toBeGreaterThan(0);

    const result = await migrate(db.url);
    expect(result).toEqual({ applied: committed.map((m) => m.name), alreadyApplied: 0 });

    const rows = await ledger(db.url);
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(committed.map((m) => [m.name, m.checksum]));
    for (const r of rows) {
      expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.finished_at).toBeInstanceOf(Date);
      expect(r.rolled_back_at).toBeNull();
      expect(r.applied_steps_count).toBe(1);
    }

    // The ledger has Prisma Migrate's columns, so `prisma migrate deploy` can take over this database.
    const columns = await withClient(db.url, async (c) =>
      (
        await c.query<{ column_name: string; data_type: string; is_nullable: string }>(
          `SELECT column_name, data_type, is_nullable FROM information_schema.columns
           WHERE table_schema = 'public' AND table_name = '_prisma_migrations' ORDER BY ordinal_position`,
        )
      ).rows.map((r) => `${r.column_name} ${r.data_type} ${r.is_nullable === 'YES' ? 'NULL' : 'NOT NULL'}`),
    );
    expect(columns).toEqual([
      'id character varying NOT NULL',
      'checksum character varying NOT NULL',
      'finished_at timestamp with time zone NULL',
      'migration_name character varying NOT NULL',
      'logs text NULL',
      'rolled_back_at timestamp with time zone NULL',
      'started_at timestamp with time zone NOT NULL',
      'applied_steps_count integer NOT NULL',
    ]);
  });

  it('does nothing on the next start, and applies only a migration added since', async () => {
    const db = await fresh();
    const committed = readMigrations();
    await migrate(db.url);
    expect(await migrate(db.url)).toEqual({ applied: [], alreadyApplied: committed.length });

    const added = extra('29990101000000_add_notes', 'CREATE TABLE "notes" ("id" UUID PRIMARY KEY, "body" TEXT NOT NULL);');
    expect(await migrate(db.url, [...committed, added])).toEqual({ applied: [added.name], alreadyApplied: committed.length });
    expect(await tableExists(db.url, 'notes')).toBe(true);
    const rows = await ledger(db.url);
    expect(rows.map((r) => r.migration_name)).toEqual([...committed.map((m) => m.name), added.name]);
    expect(rows.at(-1)!.checksum).toBe(sha256(added.sql));
  });

  it('refuses to start when an applied migration file was changed afterwards', async () => {
    const db = await fresh();
    await migrate(db.url);
    const dir = mkdtempSync(join(tmpdir(), 'mcpr-migrations-'));
    try {
      cpSync(findMigrationsDir(), dir, { recursive: true });
      const first = readMigrations(dir)[0];
      appendFileSync(join(dir, first.name, 'migration.sql'), '\n-- edited after it was applied\n');
      const pending = extra('29990101000000_add_notes', 'CREATE TABLE "notes" ("id" UUID PRIMARY KEY);');
      const error = await migrate(db.url, [...readMigrations(dir), pending]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toBe(
        `migration ${first.name} was changed after it was applied (checksum differs); refusing to start`,
      );
      // Nothing after the refusal ran.
      expect(await tableExists(db.url, 'notes')).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rolls a failing migration back whole and records nothing, so the next start retries it', async () => {
    const db = await fresh();
    await migrate(db.url);
    const broken = extra('29990101000000_broken', 'CREATE TABLE "half_done" ("id" INTEGER); SELECT 1 / 0;');
    const error = await migrate(db.url, [...readMigrations(), broken]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/^migration 29990101000000_broken failed: division by zero/);
    expect(await tableExists(db.url, 'half_done')).toBe(false);
    expect((await ledger(db.url)).map((r) => r.migration_name)).not.toContain(broken.name);

    const fixed = extra(broken.name, 'CREATE TABLE "half_done" ("id" INTEGER);');
    expect((await migrate(db.url, [...readMigrations(), fixed])).applied).toEqual([broken.name]);
  });

  it('refuses to start while an earlier migration is marked unfinished, and goes on once it is rolled back', async () => {
    const db = await fresh();
    await migrate(db.url);
    const id = randomUUID();
    await withClient(db.url, (c) =>
      c.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
         VALUES ($1, $2, '29990101000000_interrupted', now(), 0)`,
        [id, sha256('x')],
      ),
    );
    const error = await migrate(db.url).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toBe(
      'migration 29990101000000_interrupted failed earlier and is marked unfinished; resolve it before starting',
    );

    // What `prisma migrate resolve --rolled-back` does: the row stays, marked rolled back, and is ignored.
    await withClient(db.url, (c) => c.query('UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE id = $1', [id]));
    expect((await migrate(db.url)).applied).toEqual([]);
  });

  const realPostgres = Boolean(process.env.TEST_DATABASE_URL);
  (realPostgres ? it : it.skip)(
    'migrates once when two processes start at the same moment on one database (advisory lock; needs a PostgreSQL server, the embedded one has one session)',
    async () => {
      const db = await fresh();
      // A slow migration keeps the first migrator inside its lock while the second one arrives.
      const slow = extra('29990101000000_slow', 'SELECT pg_sleep(0.5); CREATE TABLE "slow" ("id" INTEGER);');
      const migrations = [...readMigrations(), slow];
      const results = await Promise.all([migrate(db.url, migrations), migrate(db.url, migrations)]);
      const applied = results.map((r) => r.applied.length).sort();
      expect(applied).toEqual([0, migrations.length]);
      expect(results.map((r) => r.alreadyApplied).sort()).toEqual([0, migrations.length]);
      const rows = await ledger(db.url);
      expect(rows.map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
    },
  );
});
