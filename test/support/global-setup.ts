import { migrate } from '../../libs/database-runtime/src/migrator';
import { Client } from 'pg';

/**
 * Builds one migrated template database per run; every test file clones its
 * own database from it (CREATE DATABASE ... TEMPLATE), so files never share state.
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const name = `mcpr_tpl_${process.pid}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  await migrate(u.toString());
  process.env.TEST_TEMPLATE_DATABASE = name;
}
