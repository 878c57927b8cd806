#!/usr/bin/env node
// Fills a registry database with discovered servers and their tools for the read-path, search and memory
// benchmarks, with bulk INSERT ... SELECT FROM unnest(...) statements (no API calls, no discovery). The tools are the search
// lib's synthetic corpus (real tools of the evaluation set, renamed around business nouns and product names),
// cut into `toolsPerServer` tools per server. A third of the servers are the platform's (BUILT_IN), the rest
// CUSTOM servers of `tenants` tenants. Idempotent per server index range.
//
// Argument: JSON {databaseUrl, fromServer, toServer, toolsPerServer, tenants, totalTools}.
// With {databaseUrl, evalSet: true, tenant} it stores the evaluation set's servers (bench/eval) instead: the
// platform's as BUILT_IN, the tenant kinds (CUSTOM, INTEGRATION) as CUSTOM servers of tenant `tenant`.
// Prints JSON {servers, tools, ms}.
'use strict';
const crypto = require('node:crypto');
const { Client } = require('pg');
const { tenantIdOf, serverIdOf, ownerOf, evalServerIdOf } = require('../lib/ids');
const { requireSearch } = require('../lib/ts-require');

const args = JSON.parse(process.argv[2]);
const { databaseUrl, fromServer, toServer, toolsPerServer = 10, tenants = 200 } = args;
const totalTools = args.totalTools ?? toServer * toolsPerServer;

/**
 * Inserts tool rows given as one array per column (server ids, names, titles, descriptions, input schemas as
 * JSON text, annotations as JSON text or null, hashes, positions), unnested into rows; existing rows are kept.
 */
function insertTools(c, columns) {
  return c.query(
    `INSERT INTO tools (id, server_id, name, title, description, input_schema, annotations, hash, position)
     SELECT gen_random_uuid(), t.sid, t.name, t.title, t.descr, t.sch::jsonb, t.ann::jsonb, t.hash, t.pos
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])
          AS t(sid, name, title, descr, sch, ann, hash, pos)
     ON CONFLICT DO NOTHING`,
    columns,
  );
}

async function seedEvalSet(c, search) {
  const { servers } = search.loadEvalSet();
  const tenantId = tenantIdOf(args.tenant ?? 7);
  await c.query(`INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [tenantId, `bench-tenant-${args.tenant ?? 7}`]);
  const own = (s) => s.kind === 'CUSTOM' || s.kind === 'INTEGRATION';
  await c.query(
    `INSERT INTO servers (id, tenant_id, owner_scope, name, kind, transport, url, status, server_name, server_version,
                          protocol_version, capabilities, tool_count, last_discovered_at, discovery_interval_seconds)
     SELECT t.id, t.tid, coalesce(t.tid::text, 'platform'), t.name, t.kind::"ServerKind", 'STREAMABLE_HTTP',
            'http://127.0.0.1:9/eval/' || t.name || '/mcp', 'CONNECTED', t.sname, '1.0.0', '2025-06-18',
            '{"tools":{"listChanged":false}}'::jsonb, t.n, now(), 2592000
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[]) AS t(id, tid, name, kind, sname, n)
     ON CONFLICT DO NOTHING`,
    [
      servers.map((s) => evalServerIdOf(s.id)),
      servers.map((s) => (own(s) ? tenantId : null)),
      servers.map((s) => `eval-${s.id}`),
      servers.map((s) => (own(s) ? 'CUSTOM' : 'BUILT_IN')),
      servers.map((s) => s.name),
      servers.map((s) => s.tools.length),
    ],
  );
  await c.query(`UPDATE server_discovery SET next_at = now() + interval '30 days' WHERE server_id = ANY($1::uuid[]) AND next_at IS NULL`, [
    servers.map((s) => evalServerIdOf(s.id)),
  ]);
  const rows = servers.flatMap((s) => s.tools.map((t, i) => ({ s, t, i })));
  await insertTools(c, [
    rows.map((r) => evalServerIdOf(r.s.id)),
    rows.map((r) => r.t.name),
    rows.map((r) => r.t.title ?? null),
    rows.map((r) => r.t.description ?? null),
    rows.map((r) => JSON.stringify(r.t.inputSchema ?? { type: 'object' })),
    rows.map((r) => (r.t.annotations ? JSON.stringify(r.t.annotations) : null)),
    rows.map((r) => crypto.createHash('sha256').update(JSON.stringify(r.t)).digest('hex')),
    rows.map((r) => r.i),
  ]);
}

async function main() {
  const started = Date.now();
  const search = requireSearch();
  if (args.evalSet) {
    const c = new Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      await seedEvalSet(c, search);
      const counts = await c.query(`SELECT count(*)::int AS servers, (SELECT count(*)::int FROM tools t JOIN servers s ON s.id = t.server_id WHERE s.name LIKE 'eval-%') AS tools FROM servers WHERE name LIKE 'eval-%'`);
      process.stdout.write(JSON.stringify({ ...counts.rows[0], ms: Date.now() - started }) + '\n');
    } finally {
      await c.end();
    }
    return;
  }
  const corpus = search.buildSyntheticCorpus(totalTools, 42);
  const flat = [];
  for (const docs of corpus.values()) for (const d of docs) flat.push(d);

  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO tenants (id, name)
       SELECT id, name FROM unnest($1::uuid[], $2::text[]) AS t(id, name)
       ON CONFLICT DO NOTHING`,
      [Array.from({ length: tenants }, (_, k) => tenantIdOf(k)), Array.from({ length: tenants }, (_, k) => `bench-tenant-${k}`)],
    );

    // Servers: names and owners computed here, passed as arrays and unnested into rows.
    const count = toServer - fromServer;
    const ids = [];
    const tenantIds = [];
    const names = [];
    const serverNames = [];
    for (let s = fromServer; s < toServer; s++) {
      const owner = ownerOf(s, tenants);
      ids.push(serverIdOf(s));
      tenantIds.push(owner === null ? null : tenantIdOf(owner));
      const first = flat[(s * toolsPerServer) % flat.length];
      names.push(`${first.serverName.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${s}`);
      serverNames.push(first.serverName);
    }
    await c.query(
      `INSERT INTO servers (id, tenant_id, owner_scope, name, kind, transport, url, status, server_name, server_version,
                            protocol_version, capabilities, tool_count, metadata, last_discovered_at,
                            discovery_interval_seconds, created_at, updated_at)
       SELECT t.id, t.tid, coalesce(t.tid::text, 'platform'), t.name,
              (CASE WHEN t.tid IS NULL THEN 'BUILT_IN' ELSE 'CUSTOM' END)::"ServerKind", 'STREAMABLE_HTTP',
              'http://127.0.0.1:9/s/' || ($5::int + t.g - 1) || '/mcp', 'CONNECTED', t.sname, '1.0.0', '2025-06-18',
              '{"tools":{"listChanged":false}}'::jsonb, $6::int, jsonb_build_object('bench', 'seed', 'shard', ((t.g - 1) % 16)::text),
              now(), 2592000,
              now() - interval '1 day' + (($5::int + t.g) * interval '1 millisecond'), now()
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS t(id, tid, name, sname, g)
       ON CONFLICT DO NOTHING`,
      [ids, tenantIds, names, serverNames, fromServer, toolsPerServer],
    );
    await c.query(`UPDATE server_discovery SET next_at = now() + interval '30 days' WHERE server_id = ANY($1::uuid[]) AND next_at IS NULL`, [ids]);

    // Tools, in batches of rows unnested from arrays.
    const BATCH = 20_000;
    const total = count * toolsPerServer;
    for (let off = 0; off < total; off += BATCH) {
      const n = Math.min(BATCH, total - off);
      const toolNames = [];
      const titles = [];
      const descriptions = [];
      const schemas = [];
      const annotations = [];
      const hashes = [];
      const serverIds = [];
      const positions = [];
      const seen = new Map();
      for (let k = 0; k < n; k++) {
        const global = fromServer * toolsPerServer + off + k;
        const s = Math.floor(global / toolsPerServer);
        const d = flat[global % flat.length];
        // A server's tool names are unique; a cut of the corpus may bring the same name twice.
        let name = d.toolName;
        for (let dup = 2; seen.has(`${s}/${name}`); dup++) name = `${d.toolName}_${dup}`;
        seen.set(`${s}/${name}`, true);
        toolNames.push(name);
        serverIds.push(ids[s - fromServer]);
        positions.push(global % toolsPerServer);
        titles.push(d.title ?? null);
        descriptions.push(d.description ?? null);
        const schema = JSON.stringify(d.inputSchema ?? { type: 'object' });
        schemas.push(schema);
        annotations.push(d.annotations ? JSON.stringify(d.annotations) : null);
        hashes.push(crypto.createHash('sha256').update(name + '\0' + (d.description ?? '') + '\0' + schema).digest('hex'));
      }
      await insertTools(c, [serverIds, toolNames, titles, descriptions, schemas, annotations, hashes, positions]);
    }
    await c.query('COMMIT');
    await c.query('ANALYZE servers');
    await c.query('ANALYZE tools');
    const counts = await c.query('SELECT (SELECT count(*) FROM servers)::int AS servers, (SELECT count(*) FROM tools)::int AS tools');
    process.stdout.write(JSON.stringify({ ...counts.rows[0], ms: Date.now() - started }) + '\n');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await c.end();
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack) + '\n');
  process.exit(1);
});
