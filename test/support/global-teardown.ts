import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (!url || !template) return;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    // Databases cloned by test files that crashed before dropping theirs.
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'mcpr_t_%' OR datname = $1`,
      [template],
    );
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
