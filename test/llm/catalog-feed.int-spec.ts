import { CatalogRepository, CatalogToolRow, ChangeFeedRepository, createDatabaseClients, DatabaseClients, INSTRUCTIONS_OPENING, ServerRepository, Sql } from '@app/database';
import { connectionFingerprint, connectionOf, ServerKind, ServerStatus, TransportType } from '@app/domain';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { migratedDatabase } from '../foundation/scratch-database';
import { useStand } from '../support/stand';

/**
 * The change log behind every replica's tool catalog and kept answers: the triggers append the servers each write
 * touched, and a reader that keeps the snapshot xmin misses nothing, even a change whose transaction began before
 * the reader looked and committed after.
 */
describe('the catalog reads and the change log', () => {
  const s = useStand(async (keep) => {
    const { db, pool } = await migratedDatabase(keep, 4);
    const sql = keep(new Client({ connectionString: db.url }), (c) => c.end());
    await sql.connect();
    // Prepared per connection, as the platform runs on PostgreSQL.
    const catalog = new CatalogRepository(new Sql(pool, 'per-connection'));
    const log = new ChangeFeedRepository(new Sql(pool, 'per-connection'));
    return { db, sql, catalog, log };
  });

  async function addServer(status = 'CONNECTED', discovered = true): Promise<string> {
    const id = randomUUID();
    await s.sql.query(
      `INSERT INTO servers (id, owner_scope, name, kind, transport, url, status, last_discovered_at)
       VALUES ($1, 'platform', $2, 'BUILT_IN', 'STREAMABLE_HTTP', 'http://x.test/mcp', $3, ${discovered ? 'now()' : 'NULL'})`,
      [id, `s-${id}`, status],
    );
    return id;
  }

  async function replaceTools(serverId: string, names: string[], client: Client = s.sql): Promise<void> {
    await client.query('DELETE FROM tools WHERE server_id = $1', [serverId]);
    for (const [i, name] of names.entries()) {
      await client.query(
        `INSERT INTO tools (id, server_id, name, description, input_schema, hash, position) VALUES ($1, $2, $3, $4, $5, 'h', $6)`,
        [randomUUID(), serverId, name, `The ${name} tool`, JSON.stringify({ type: 'object', properties: { q: { type: 'string', default: null } } }), i],
      );
    }
  }

  async function changedSince(xmin: bigint): Promise<{ ids: string[]; xmin: bigint }> {
    const r = await s.log.changesSince(xmin);
    return { ids: [...new Set(r.changes.map((c) => c.serverId))], xmin: r.xmin };
  }

  it('loads live servers with their tools page by page, and whole definitions on demand, nulls inside schemas kept', async () => {
    const live = await addServer();
    await replaceTools(live, ['alpha', 'beta']);
    const rediscovering = await addServer('DISCOVERING', true);
    await replaceTools(rediscovering, ['gamma']);
    const failed = await addServer('ERROR');
    await replaceTools(failed, ['delta']);
    const fresh = await addServer('DISCOVERING', false);

    const servers: string[] = [];
    const tools: CatalogToolRow[] = [];
    for (let after: string | null = null; ; ) {
      const page = await s.catalog.loadPage(after, 1);
      if (page.servers.length === 0) break;
      expect(page.servers).toHaveLength(1);
      servers.push(page.servers[0].id);
      tools.push(...page.tools);
      after = page.servers[0].id;
    }
    expect(servers).toEqual([live, rediscovering].sort());
    expect(servers).not.toContain(failed);
    expect(servers).not.toContain(fresh);
    const alpha = tools.find((t) => t.serverId === live && t.toolName === 'alpha')!;
    expect(alpha).toMatchObject({ title: null, description: 'The alpha tool', annotationsTitle: null });
    expect(alpha.inputSchema).toEqual({ type: 'object', properties: { q: { type: 'string', default: null } } });
    const fetched = await s.catalog.definitions([
      { serverId: live, toolName: 'beta' },
      { serverId: live, toolName: 'no-such-tool' },
      { serverId: 'not-a-uuid', toolName: 'alpha' },
    ]);
    expect(fetched.map((t) => t.toolName)).toEqual(['beta']);
    expect(JSON.parse(fetched[0].definition)).toEqual({
      name: 'beta',
      description: 'The beta tool',
      inputSchema: { type: 'object', properties: { q: { type: 'string', default: null } } },
    });

    // The tools' fingerprint follows their stored hashes.
    const before = (await s.catalog.loadServers([live])).servers[0].toolsHash;
    await s.sql.query(`UPDATE tools SET hash = 'h2' WHERE server_id = $1 AND name = 'beta'`, [live]);
    expect((await s.catalog.loadServers([live])).servers[0].toolsHash).not.toBe(before);
  });

  it("reads the opening of a server's instructions for the search, and reports a change of them", async () => {
    const id = await addServer();
    await replaceTools(id, ['one']);
    expect((await s.catalog.loadServers([id])).servers[0].instructions).toBeNull();
    const { xmin } = await changedSince(0n);
    const long = `Acme Ledger keeps the books. ${'x'.repeat(INSTRUCTIONS_OPENING * 2)}`;
    await s.sql.query('UPDATE servers SET instructions = $2 WHERE id = $1', [id, long]);
    expect((await s.log.changesSince(xmin)).changes).toContainEqual(expect.objectContaining({ serverId: id, bookkeeping: false }));
    const loaded = (await s.catalog.loadServers([id])).servers[0].instructions;
    expect(loaded).toBe(long.slice(0, INSTRUCTIONS_OPENING));
  });

  it("reports tool replacements, deletes and status changes with the owner, and changes of the server's discovery row as bookkeeping", async () => {
    const id = await addServer();
    let { xmin } = await changedSince(0n);
    await replaceTools(id, ['one']);
    let next = await changedSince(xmin);
    expect(next.ids).toContain(id);
    xmin = next.xmin;

    const before = (await s.log.changesSince(xmin)).changes;
    expect((await s.log.changesSince(0n)).changes.filter((c) => c.serverId === id)).toContainEqual(expect.objectContaining({ tenantId: null, bookkeeping: false }));
    await s.sql.query(`UPDATE server_discovery SET lease_owner = 'w1', lease_until = now() WHERE server_id = $1`, [id]);
    await s.sql.query(`UPDATE server_discovery SET next_at = now(), retry_reason = 'attempt 1 of 3 failed: refused; trying again' WHERE server_id = $1`, [id]);
    const bookkeeping = (await s.log.changesSince(xmin)).changes.slice(before.length);
    expect(bookkeeping).toEqual([expect.objectContaining({ serverId: id, bookkeeping: true }), expect.objectContaining({ serverId: id, bookkeeping: true })]);
    // Any write of the server row is a change of the server, whichever column it moved.
    await s.sql.query(`UPDATE servers SET status_reason = 'discovery queued' WHERE id = $1`, [id]);
    expect((await s.log.changesSince(xmin)).changes.slice(before.length + 2)).toEqual([expect.objectContaining({ serverId: id, bookkeeping: false })]);

    await s.sql.query(`UPDATE servers SET status = 'ERROR' WHERE id = $1`, [id]);
    next = await changedSince(xmin);
    expect(next.ids).toContain(id);
    const loaded = await s.catalog.loadServers([id]);
    expect(loaded.servers[0]).toMatchObject({ id, live: false });
    expect(loaded.tools).toEqual([]);

    await s.sql.query('DELETE FROM servers WHERE id = $1', [id]);
    next = await changedSince(next.xmin);
    expect(next.ids).toContain(id);
    expect((await s.catalog.loadServers([id])).servers).toEqual([]);
  });

  // The embedded PostgreSQL runs every connection in one session, so two transactions cannot be open at once there.
  const separateSessions = process.env.TEST_DATABASE_URL ? it : it.skip;
  separateSessions('misses no change whose transaction started before a poll and committed after it (skipped on the embedded PostgreSQL: one session for all connections)', async () => {
    const id = await addServer();
    const start = await s.log.changesSince(0n);
    const late = new Client({ connectionString: s.db.url });
    await late.connect();
    try {
      await late.query('BEGIN');
      await replaceTools(id, ['slow'], late);
      // Polls while the slow writer is open; a quicker writer commits in between, with later ids.
      const during = await s.log.changesSince(start.xmin);
      const quick = await addServer();
      await replaceTools(quick, ['fast']);
      const afterQuick = await s.log.changesSince(during.xmin);
      expect(afterQuick.changes.map((c) => c.serverId)).toContain(quick);
      const seen = new Set([...during.changes, ...afterQuick.changes].map((c) => c.id));
      const highest = afterQuick.changes.reduce((m, c) => (c.id > m ? c.id : m), 0n);
      await late.query('COMMIT');
      const afterLate = await s.log.changesSince(afterQuick.xmin);
      const lateRows = afterLate.changes.filter((c) => c.serverId === id && !seen.has(c.id));
      expect(lateRows.length).toBeGreaterThan(0);
      // A reader that kept only the highest id it had seen would have skipped these.
      expect(lateRows.every((c) => c.id < highest)).toBe(true);
    } finally {
      await late.end();
    }
  });

  it("computes a server's connection fingerprint as the tool change watcher does, and changes it with each part of the connection only", async () => {
    const clients: DatabaseClients = createDatabaseClients(s.db.url, 2);
    try {
      const servers = new ServerRepository(clients.prisma, clients.sql);
      const id = randomUUID();
      await servers.create({
        id, tenantId: null, name: `fp-${id}`, kind: ServerKind.BUILT_IN, transport: TransportType.STREAMABLE_HTTP,
        url: 'https://fp.example.com/mcp', command: null, args: [], env: {}, headers: { 'x-b': '2', 'x-a': '1' },
        credentialsCipher: 'sealed', credentialsEnv: null, enabled: true, metadata: {}, discoveryIntervalSeconds: null,
        appSlug: null, accountId: null, status: ServerStatus.CONNECTED, statusReason: null,
        oauthConfig: { clientId: 'client', scopes: ['read'] }, oauthClientSecretCipher: 'sealed-secret',
      });
      /** The catalog's fingerprint, and the watcher's (from the server as the worker reads it). */
      const both = async () => {
        const record = (await servers.findById(id, { type: 'admin' }))!;
        const credentials = (await servers.findCredentials(id))!;
        return [(await s.catalog.loadServers([id])).servers[0].connection, connectionFingerprint(connectionOf(record, credentials))];
      };
      const [first, watcher] = await both();
      expect(first).toBe(watcher);
      const seen = new Set([first]);
      const changes: [string, string][] = [
        ['url', `url = 'https://other.example.com/mcp'`],
        ['headers', `headers = '{"x-a": "1"}'`],
        ['credentials', `credentials_cipher = 'sealed-again'`],
        ['auth', `oauth_config = '{"clientId": "other"}'`],
        ['transport', `transport = 'SSE'`],
        ['integration', `app_slug = 'slack', account_id = 'apn_1'`],
      ];
      for (const [part, set] of changes) {
        await s.sql.query(`UPDATE servers SET ${set} WHERE id = $1`, [id]);
        const [catalogSays, watcherSays] = await both();
        expect({ part, agree: catalogSays === watcherSays, changed: !seen.has(catalogSays) }).toEqual({ part, agree: true, changed: true });
        seen.add(catalogSays);
      }
      const [before] = await both();
      await s.sql.query(`UPDATE servers SET name = 'renamed', metadata = '{"a": "b"}', status = 'ERROR' WHERE id = $1`, [id]);
      expect((await both())[0]).toBe(before);
    } finally {
      await clients.prisma.$disconnect();
    }
  });

  it('prunes old changes', async () => {
    await s.sql.query(`UPDATE server_changes SET at = now() - interval '2 hours'`);
    expect(await s.log.prune(3_600_000)).toBeGreaterThan(0);
    expect((await s.log.changesSince(0n)).changes).toEqual([]);
  });
});
