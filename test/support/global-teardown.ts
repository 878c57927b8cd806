import { Client } from 'pg';
import { runDatabasePrefix } from './database';

export default async function globalTeardown(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (!url || !template) return;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    // Databases this run's test files left behind when they crashed; never another run's (starts_with, not
    // LIKE: in LIKE an underscore matches any character).
    const prefix = runDatabasePrefix();
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR datname = $2`,
      [prefix, template],
    );
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
