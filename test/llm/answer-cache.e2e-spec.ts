import { Client } from 'pg';
import { ChangeFeed, CHANGE_LISTENER_APPLICATION_NAME } from '@app/database';
import { AnswerCache } from '../../apps/api/src/common/answer-cache';
import { expectProblem, makeTenant, TenantKey } from '../support/tenants';
import { startTestApp, TestApp } from '../support/app';
import { waitFor } from '../support/servers';
import { mcpClient, structured } from './helpers';

/**
 * The kept read answers: served again while nothing changed, dropped the moment a server or its tools change
 * in the database (whoever wrote it: here another connection, as a worker would), never shown to a tenant
 * that may not see the server, and not kept at all while the change notifications cannot be trusted.
 */
describe('kept read answers (mcp-get-server-info, mcp-list-servers, GET /servers)', () => {
  let t: TestApp;
  let a: TenantKey;
  let b: TenantKey;
  let platformServer: string;
  let mine: string;
  /** Another connection to the database, as the discovery worker is. */
  let other: Client;
  let cache: AnswerCache;

  beforeAll(async () => {
    t = await startTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '*.example.com' } });
    cache = t.app.get(AnswerCache);
    a = await makeTenant(t);
    b = await makeTenant(t);
    platformServer = (await t.request('POST', '/api/v1/servers', { body: { name: 'kept-catalog', transport: 'sse', url: 'https://c.example.com' } })).body.id;
    mine = (await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'kept-mine', transport: 'sse', url: 'https://m.example.com' } })).body.id;
    other = new Client({ connectionString: t.database.url });
    await other.connect();
    await waitFor('listening for registry changes', async () => cache.active, 10_000, 20);
    // The registrations' own changes delivered: none of them drops an answer a test keeps.
    await t.app.get(ChangeFeed).read();
  });
  afterAll(async () => {
    await other?.end();
    await t?.close();
  });

  const info = (key: string | undefined, serverId: string) => t.request('POST', '/api/v1/llm/mcp-get-server-info', { key, body: { serverId } });

  it('serves the same answer again from what it kept, as JSON', async () => {
    const first = await info(a.key, mine);
    expect(first.status).toBe(200);
    const hits = cache.stats.hits;
    const second = await info(a.key, mine);
    expect(second.status).toBe(200);
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(second.body).toEqual(first.body);
    expect(cache.stats.hits).toBe(hits + 1);
  });

  it('answers get_server_info and list_servers through /mcp from the same kept answers as the RPC routes', async () => {
    const rpc = await info(a.key, mine);
    const listed = await t.request('POST', '/api/v1/llm/mcp-list-servers', { key: a.key, body: { pageSize: 100 } });
    const client = await mcpClient(t, a.key);
    try {
      // Served from what the RPC routes kept: hits, and no read of its own.
      const { hits, misses } = cache.stats;
      const viaMcp = structured(await client.callTool({ name: 'get_server_info', arguments: { serverId: mine } }));
      expect(viaMcp).toEqual(rpc.body);
      const listViaMcp = structured(await client.callTool({ name: 'list_servers', arguments: { pageSize: 100 } }));
      expect(listViaMcp).toEqual(listed.body);
      expect(cache.stats.hits).toBeGreaterThanOrEqual(hits + 2);
      expect(cache.stats.misses).toBe(misses);
      // And a tenant that may not see the server is not shown the kept answer there either.
      const other = await mcpClient(t, b.key);
      try {
        expect(await other.callTool({ name: 'get_server_info', arguments: { serverId: mine } })).toMatchObject({ isError: true });
      } finally {
        await other.close();
      }
    } finally {
      await client.close();
    }
  });

  it('tags each answer, and a listing whose tag still matches is answered 304', async () => {
    const first = await t.request('GET', '/api/v1/servers?pageSize=100', { key: a.key });
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    // (fetch asks for a reload, Cache-Control: no-cache, unless the request says otherwise)
    const conditional = { 'if-none-match': etag!, 'cache-control': 'max-age=0' };
    const again = await t.request('GET', '/api/v1/servers?pageSize=100', { key: a.key, headers: conditional });
    expect(again.status).toBe(304);
    await t.request('PATCH', `/api/v1/servers/${mine}`, { key: a.key, body: { metadata: { tagged: 'yes' } } });
    const changed = await t.request('GET', '/api/v1/servers?pageSize=100', { key: a.key, headers: conditional });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('drops a kept answer as soon as another process changes the server or its tools', async () => {
    expect((await info(a.key, platformServer)).body.availableTools).toEqual([]);
    expect((await info(a.key, platformServer)).body.availableTools).toEqual([]);
    await other.query(`UPDATE servers SET status = 'CONNECTED', server_version = '9.9.9', tool_count = 1 WHERE id = $1`, [platformServer]);
    await other.query(
      `INSERT INTO tools (id, server_id, name, input_schema, hash, position) VALUES (gen_random_uuid(), $1, 'fresh_tool', '{"type":"object"}', 'h', 0)`,
      [platformServer],
    );
    const started = Date.now();
    const fresh = await waitFor('the new answer', async () => {
      const res = await info(a.key, platformServer);
      return res.body.availableTools.length === 1 ? res.body : undefined;
    }, 5000, 5);
    // Notifications arrive in milliseconds; the catalog's change feed poll (1 s) is not what made this fresh.
    expect(Date.now() - started).toBeLessThan(900);
    expect(fresh).toMatchObject({ version: '9.9.9', status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', availableTools: [{ name: 'fresh_tool' }] });
    // A change to a tool alone (no server row touched) drops the answer too.
    await other.query(`UPDATE tools SET description = 'now described' WHERE server_id = $1`, [platformServer]);
    await waitFor('the changed tool', async () => (await info(a.key, platformServer)).body.availableTools[0]?.description === 'now described', 5000, 5);
  });

  it('never shows a kept answer to a tenant that may not see the server', async () => {
    expect((await info(a.key, mine)).status).toBe(200);
    expect((await info(a.key, mine)).status).toBe(200);
    const res = await info(b.key, mine);
    expectProblem(res, 404);
    const list = await t.request('GET', '/api/v1/servers?pageSize=100', { key: b.key });
    expect(list.body.servers.map((s: { id: string }) => s.id)).not.toContain(mine);
  });

  it('reads its own write: a listing right after a PATCH through this process shows it', async () => {
    for (let i = 0; i < 5; i++) {
      const before = await t.request('GET', '/api/v1/servers?pageSize=100', { key: a.key });
      expect(before.status).toBe(200);
      const patched = await t.request('PATCH', `/api/v1/servers/${mine}`, { key: a.key, body: { metadata: { round: String(i) } } });
      expect(patched.status).toBe(200);
      const after = await t.request('GET', '/api/v1/servers?pageSize=100', { key: a.key });
      expect(after.body.servers.find((s: { id: string }) => s.id === mine).metadata).toEqual({ round: String(i) });
      const rpc = await t.request('POST', '/api/v1/llm/mcp-list-servers', { key: a.key, body: { pageSize: 100 } });
      expect(rpc.body.servers.find((s: { serverId: string }) => s.serverId === mine).metadata).toEqual({ round: String(i) });
    }
  });

  it('is cleared by an authenticated write through this process, not by a request without a valid key', async () => {
    await info(a.key, platformServer);
    await info(a.key, platformServer);
    const kept = cache.size.entries;
    expect(kept).toBeGreaterThan(0);
    expect((await t.request('POST', '/api/v1/servers', { key: 'mcpr_not_a_key', body: { name: 'x' } })).status).toBe(401);
    expect(cache.size.entries).toBe(kept);
    // A write to another server: its notification would not touch the platform server's answer; the fence does.
    expect((await t.request('PATCH', `/api/v1/servers/${mine}`, { key: a.key, body: { metadata: { fenced: 'yes' } } })).status).toBe(200);
    expect(cache.size.entries).toBe(0);
  });

  it("drops another tenant's listings only when a server they can see changes", async () => {
    const key = (k: string) => t.request('GET', '/api/v1/servers?pageSize=100', { key: k });
    await key(b.key);
    await key(b.key);
    const hits = cache.stats.hits;
    // Tenant a's own server changes in the database: b's listing cannot include it and stays kept.
    await other.query(`UPDATE servers SET server_version = '2.0.0' WHERE id = $1`, [mine]);
    await waitFor("a's listing to show the change", async () => {
      const res = await key(a.key);
      return res.body.servers.find((s: { id: string }) => s.id === mine).version === '2.0.0';
    }, 5000, 5);
    await key(b.key);
    expect(cache.stats.hits).toBeGreaterThan(hits);
  });

  it('keeps nothing while it cannot listen, and listens again after its connection is cut', async () => {
    await info(a.key, mine);
    // Found by its name: its last statement may be a heartbeat rather than the LISTEN.
    await other.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [
      CHANGE_LISTENER_APPLICATION_NAME,
    ]);
    await waitFor('the listener to notice', async () => !cache.active, 5000, 5);
    expect(cache.size.entries).toBe(0);
    // Answers are still right meanwhile, read afresh.
    await other.query(`UPDATE servers SET server_version = '3.0.0' WHERE id = $1`, [mine]);
    expect((await info(a.key, mine)).body.version).toBe('3.0.0');
    expect(cache.size.entries).toBe(0);
    await waitFor('listening again', async () => cache.active, 15_000, 20);
    await info(a.key, mine);
    await other.query(`UPDATE servers SET server_version = '4.0.0' WHERE id = $1`, [mine]);
    await waitFor('the change after listening again', async () => (await info(a.key, mine)).body.version === '4.0.0', 5000, 5);
  });

  it('notices a listening connection that went silent (no reset), keeps nothing meanwhile, and listens again', async () => {
    await waitFor('listening', async () => cache.active, 15_000, 20);
    const { rows } = await other.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [
      CHANGE_LISTENER_APPLICATION_NAME,
    ]);
    expect(rows).toHaveLength(1);
    const pid = rows[0].pid as number;
    // The server process stops answering without closing anything, as a host lost behind a NAT would.
    process.kill(pid, 'SIGSTOP');
    try {
      await waitFor('the heartbeat to give the connection up', async () => !cache.active, 15_000, 50);
      expect(cache.size.entries).toBe(0);
      expect((await info(a.key, mine)).status).toBe(200);
      expect(cache.size.entries).toBe(0);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitFor('listening again', async () => cache.active, 20_000, 50);
  }, 60_000);
});
