#!/usr/bin/env node
// What a discovery's own statements cost PostgreSQL, one at a time, with nothing else running: the claim, the
// result (20 tools) and the asked-again check of the discovery worker's repository (from dist/, so `npm run build`
// first), run for N servers on one connection to a scratch database, each timed as the CPU of that connection's
// PostgreSQL backend (from /proc, so on this machine's PostgreSQL only). Prints µs of backend CPU per statement.
//
//   node bench/tools/statement-cost.js [--servers=N] [--unprepared]
//
// --unprepared runs the statements unnamed (parsed and planned each time), as DATABASE_PREPARED_STATEMENTS=false.
'use strict';
const { createHash } = require('node:crypto');
const path = require('node:path');
const { Pool } = require('pg');
const { cpuMsOf } = require('../lib/cpu');
const { createDatabase, dropDatabase, ROOT } = require('../lib/platform');

const DIST = path.join(ROOT, 'dist/apps/worker/libs/database/src');
const { DiscoveryStateRepository } = require(path.join(DIST, 'repositories/discovery-state.repository.js'));
const { Sql } = require(path.join(DIST, 'sql.js'));
const { migrate } = require(path.join(ROOT, 'dist/apps/worker/libs/database-runtime/src/migrator.js'));

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')));
const servers = Number(args.servers ?? 2000);
const warmup = Math.min(300, Math.floor(servers / 4));

const tools = Array.from({ length: 20 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Does thing ${i} for the caller, with a sentence or two of description as real tools have`,
  inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'The city' }, days: { type: 'number' } }, required: ['city'] },
  hash: createHash('sha256').update(String(i)).digest('hex'),
}));

async function main() {
  const db = await createDatabase('statements');
  const pool = new Pool({ connectionString: db.url, max: 1 });
  try {
    await migrate(db.url);
    await pool.query(
      `INSERT INTO servers (id, owner_scope, name, kind, transport, url, updated_at)
       SELECT gen_random_uuid(), '-', 's' || g, 'BUILT_IN', 'STREAMABLE_HTTP', 'http://127.0.0.1/' || g, now() FROM generate_series(1, $1) g`,
      [servers],
    );
    const ids = (await pool.query('SELECT id FROM servers ORDER BY name')).rows.map((r) => r.id);
    const repo = new DiscoveryStateRepository(null, new Sql(pool, 'unprepared' in args ? 'off' : 'per-connection'), null, null);
    const backend = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const spent = { claim: 0, result: 0, askedAgain: 0 };
    for (let k = 0; k < ids.length; k++) {
      const before = cpuMsOf(backend);
      const claim = await repo.claim(ids[k], 'bench-worker', 40_000, { trigger: 'registered', attempt: 1, orphanedRun: 'stopped' });
      const claimed = cpuMsOf(backend);
      const recorded = await repo.succeed(ids[k], 'bench-worker', claim.claimedAt, {
        runId: claim.runId,
        identity: { serverName: 'fixture', serverTitle: null, serverVersion: '1.0.0', protocolVersion: '2025-06-18', instructions: null, capabilities: { tools: { listChanged: true } }, resourceCount: null, promptCount: null },
        tools,
        dropped: [],
        durationMs: 12,
        stderr: null,
        nextDiscoveryAt: new Date(Date.now() + 3_600_000),
      });
      if (recorded.status !== 'recorded') throw new Error(`the result was not recorded: ${recorded.status}`);
      const written = cpuMsOf(backend);
      // One look per discovery: the worker looks for every job that ended within ENDED_BATCH_MS at once, so this is its most.
      await repo.askedAgainAmong([{ serverId: ids[k], since: claim.claimedAt }]);
      if (k < warmup) continue;
      spent.claim += claimed - before;
      spent.result += written - claimed;
      spent.askedAgain += cpuMsOf(backend) - written;
    }
    const n = ids.length - warmup;
    const per = Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, Math.round((v * 1000) / n)]));
    const total = per.claim + per.result + per.askedAgain;
    process.stdout.write(
      `${n} servers (after ${warmup} untimed), ${'unprepared' in args ? 'unprepared' : 'prepared'}: PostgreSQL backend CPU per statement, µs: ` +
        `claim ${per.claim}, result ${per.result}, asked-again ${per.askedAgain}; ${total} per discovery\n`,
    );
  } finally {
    await pool.end();
    await dropDatabase(db.name);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  },
);
