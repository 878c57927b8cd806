#!/usr/bin/env node
// `npm test`: finds the PostgreSQL and Redis to test against (TEST_DATABASE_URL / TEST_REDIS_URL, else the
// local ones on their standard ports), says which, and runs jest. With neither, tests run on the embedded
// defaults and the tests that need Redis say that they were skipped and why.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { tcpAnswers } = require('./lib/ports');

async function pick(explicit, fallbackUrl, defaultPort) {
  if (explicit) return explicit;
  const ok = await tcpAnswers('127.0.0.1', defaultPort, 1500);
  return ok ? fallbackUrl : '';
}

(async () => {
  const env = { ...process.env };
  env.TEST_DATABASE_URL = await pick(process.env.TEST_DATABASE_URL, 'postgresql://postgres@127.0.0.1:5432/postgres', 5432);
  env.TEST_REDIS_URL = await pick(process.env.TEST_REDIS_URL, 'redis://127.0.0.1:6379', 6379);
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  process.stderr.write(
    `tests: PostgreSQL ${env.TEST_DATABASE_URL ? 'at ' + new URL(env.TEST_DATABASE_URL).host : 'not found: embedded (PGlite)'}; ` +
      `Redis ${env.TEST_REDIS_URL ? 'at ' + new URL(env.TEST_REDIS_URL).host : 'not found: queue on PostgreSQL, Redis tests skipped'}; ` +
      `Chromium ${existsSync(chromium) ? 'at ' + chromium : `not found at ${chromium}: the console's browser tests are skipped (apt-get install chromium)`}\n`,
  );
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings`.trim();
  const args = ['node_modules/jest/bin/jest.js', ...process.argv.slice(2)];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', env });
  process.exit(r.status ?? 1);
})();
