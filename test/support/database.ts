import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestDatabase {
  /** Connection string of this file's own database; undefined on the embedded default. */
  url?: string;
  drop(): Promise<void>;
}

export const hasPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);
export const redisUrl = (): string | undefined => process.env.TEST_REDIS_URL || undefined;

/**
 * The prefix of the databases this test run creates. It carries the run's own id, so that the teardown of
 * one run never drops the databases of another run on the same server.
 */
export function runDatabasePrefix(): string {
  const template = process.env.TEST_TEMPLATE_DATABASE ?? '';
  return `mcpr_t_${template.replace(/^mcpr_tpl_/, '')}_`;
}

/** A fresh database cloned from the migrated template (or nothing, on the embedded default). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (!base || !template) return { url: undefined, drop: async () => undefined };
  const name = `${runDatabasePrefix()}${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
