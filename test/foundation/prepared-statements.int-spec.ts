import { EmbeddedPostgres } from '@app/database-runtime';
import { Sql } from '@app/database';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { createEmptyDatabase, ScratchDatabase } from './scratch-database';

const STATEMENT = 'SELECT $1::int + 1 AS n, pg_backend_pid() AS pid';

/** Runs the named statement `times` times, `inFlight` at a time, and returns the answers. */
async function run(sql: Sql, times: number, inFlight: number): Promise<number[]> {
  const answers: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < times) {
        const i = next++;
        const [row] = await sql.query<{ n: number }>(STATEMENT, [i], 'spec.add-one');
        answers[i] = row.n;
      }
    }),
  );
  return answers;
}

describe('prepared statements (Sql)', () => {
  let db: ScratchDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it('on PostgreSQL, prepares a named statement on each connection under its own name, and prepares nothing when off', async () => {
    db = await createEmptyDatabase();
    const pool = new Pool({ connectionString: db.url, max: 3 });
    try {
      const sql = new Sql(pool, 'per-connection');
      expect(await run(sql, 30, 3)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
        // Every connection of the pool ran it (three lanes, thirty runs): each holds it under its plain name.
        expect(rows).toEqual([{ name: 'spec.add-one' }]);
      } finally {
        client.release();
      }
      // Off: nothing is prepared.
      const plain = new Pool({ connectionString: db.url, max: 1 });
      try {
        const off = new Sql(plain, 'off');
        await run(off, 3, 1);
        const { rows } = await plain.query('SELECT name FROM pg_prepared_statements');
        expect(rows).toEqual([]);
      } finally {
        await plain.end();
      }
    } finally {
      await pool.end();
    }
  });

  it('on the embedded database, whose connections share one session, gives each pool client a name of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpr-prepared-'));
    const embedded = await EmbeddedPostgres.start(dir);
    const pool = new Pool({ connectionString: embedded.url, max: 4 });
    try {
      // One name for every client collides in the shared session: the reason for the mode below.
      const clash = new Sql(pool, 'per-connection');
      await expect(run(clash, 40, 4)).rejects.toThrow(/already exists/);
      const shared = new Sql(new Pool({ connectionString: embedded.url, max: 4 }), 'shared-session');
      try {
        expect(await run(shared, 40, 4)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        const { rows } = await shared.pool.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'spec.add-one#%'`);
        expect(rows.length).toBeGreaterThanOrEqual(1);
        expect(rows.length).toBeLessThanOrEqual(4);
      } finally {
        await shared.pool.end();
      }
    } finally {
      await pool.end().catch(() => undefined);
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
