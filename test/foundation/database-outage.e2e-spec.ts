import { makeTenant, TenantKey } from '../support/tenants';
import { startTcpProxy, TcpProxy } from '../fixtures/tcp-proxy';
import { CallFixture, startCallFixture } from '../llm/call-fixtures';
import { eventually } from '../llm/helpers';
import { startTestApp, TestApp } from '../support/app';
import { createTestDatabase, hasPostgres, TestDatabase } from '../support/database';

const DB_DOWN = 'PostgreSQL does not answer';
const DB_UP = 'PostgreSQL answers again';
const QUERY = 'echo the message back';

/**
 * PostgreSQL taken away from one registry (a proxy of the test's own between it and this machine's PostgreSQL,
 * cut and restored; the shared server is never touched). Every request that needs the database is a prompt 503
 * with Retry-After (no 500, no stack trace per request), the outage is logged once as it begins and once as it
 * ends, tool calls and searches go on from memory, and once it is back the registry is ready again with nothing
 * lost (the audit records of the calls made meanwhile are written).
 */
(hasPostgres() ? describe : describe.skip)('a PostgreSQL outage (needs TEST_DATABASE_URL)', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  let fixture: CallFixture;
  let a: TenantKey;
  let serverId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const direct = new URL(db.url!);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(db.url!);
    proxied.host = proxy.address;
    fixture = await startCallFixture();
    t = await startTestApp({ database: { url: proxied.toString(), drop: async () => undefined } });
    a = await makeTenant(t);
    const created = await t.request('POST', '/api/v1/servers', { body: { name: 'in-memory', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url } });
    expect(created.status).toBe(201);
    serverId = created.body.id;
    await eventually('the server callable', async () => (await call()).status === 200);
    await eventually('the tool searchable', async () => (await search()).body.results?.length > 0);
  });

  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await t?.close();
    await proxy?.close();
    await fixture?.close();
    await db?.drop();
  });

  const call = () => t.request('POST', '/api/v1/llm/mcp-call-tool', { key: a.key, body: { serverId, toolName: 'echo', arguments: { message: 'hi' } } });
  const search = () => t.request('POST', '/api/v1/llm/mcp-search-tools', { key: a.key, body: { query: QUERY } });
  const count = (line: string) => t.logs().split('\n').filter((l) => l.includes(line)).length;
  const timed = async <T>(f: () => Promise<T>): Promise<T & { ms: number }> => {
    const started = Date.now();
    const res = await f();
    return { ...res, ms: Date.now() - started };
  };

  it('answers 503 with Retry-After while it is cut, logged once, keeps calls and searches going, and is whole again once it is back', async () => {
    const auditBefore = await t.runtime.prisma.auditEvent.count({ where: { action: 'tool.call', tenantId: a.tenantId } });
    await proxy.cut();

    const refused = [
      await timed(() => t.request('GET', '/api/v1/servers', { key: a.key })),
      await timed(() => t.request('GET', `/api/v1/servers/${serverId}`)),
      await timed(() => t.request('POST', '/api/v1/tenants', { body: { name: 'during-the-outage' } })),
      await timed(() => t.request('GET', '/api/v1/audit')),
    ];
    for (const res of refused) {
      expect({ status: res.status, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after') }).toEqual({
        status: 503,
        type: expect.stringContaining('application/problem+json'),
        retryAfter: '5',
      });
      expect(res.body.detail).toBe('the registry cannot reach its database; try again shortly');
      // Refused at once (the connection is refused), well within the pool's 5 s connection bound.
      expect(res.ms).toBeLessThan(6000);
    }

    // From memory: the catalog, the pooled session and the key looked up before the outage.
    for (let i = 0; i < 3; i++) {
      const res = await call();
      expect(res.status).toBe(200);
      expect(res.body.structuredContent).toEqual({ echoed: 'hi' });
    }
    const found = await search();
    expect(found.status).toBe(200);
    expect(found.body.results[0]).toMatchObject({ serverId, tool: { name: 'echo' } });

    const ready = await t.request('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toMatchObject({ database: 'down' });

    expect(count(DB_DOWN)).toBe(1);
    expect(count(DB_UP)).toBe(0);
    expect(count('unhandled error')).toBe(0);

    await proxy.restore();
    await eventually('ready again', async () => (await t.request('GET', '/health/ready')).status === 200, 30_000);
    await eventually('the end of the outage logged', async () => count(DB_UP) > 0, 10_000);
    expect(count(DB_DOWN)).toBe(1);
    expect(count(DB_UP)).toBe(1);
    expect((await t.request('GET', '/api/v1/servers', { key: a.key })).status).toBe(200);
    // Nothing lost: the calls made during the outage are in the audit log.
    await eventually(
      'the audit records of the calls made during the outage',
      async () => (await t.runtime.prisma.auditEvent.count({ where: { action: 'tool.call', tenantId: a.tenantId } })) >= auditBefore + 3,
      15_000,
    );
  });
});
