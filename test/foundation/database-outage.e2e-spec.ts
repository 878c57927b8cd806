import { makeTenant } from '../support/tenants';
import { startTcpProxy } from '../fixtures/tcp-proxy';
import { startCallFixture } from '../llm/call-fixtures';
import { eventually } from '../llm/helpers';
import { startTestApp } from '../support/app';
import { createTestDatabase, hasPostgres } from '../support/database';
import { useStand } from '../support/stand';

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
  const s = useStand(async (keep) => {
    const db = keep(await createTestDatabase(), (d) => d.drop());
    const direct = new URL(db.url!);
    const proxy = keep(await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) }));
    const proxied = new URL(db.url!);
    proxied.host = proxy.address;
    const fixture = keep(await startCallFixture());
    const t = keep(await startTestApp({ database: { url: proxied.toString(), drop: async () => undefined } }));
    // PostgreSQL answers again before the registry closes.
    keep(proxy, (p) => p.restore().catch(() => undefined));
    const a = await makeTenant(t);
    const created = await t.request('POST', '/api/v1/servers', { body: { name: 'in-memory', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url } });
    expect(created.status).toBe(201);
    return { proxy, t, a, serverId: created.body.id as string };
  });
  beforeAll(async () => {
    await eventually('the server callable', async () => (await call()).status === 200);
    await eventually('the tool searchable', async () => (await search()).body.results?.length > 0);
  });

  const call = () => s.t.request('POST', '/api/v1/llm/mcp-call-tool', { key: s.a.key, body: { serverId: s.serverId, toolName: 'echo', arguments: { message: 'hi' } } });
  const search = () => s.t.request('POST', '/api/v1/llm/mcp-search-tools', { key: s.a.key, body: { query: QUERY } });
  const count = (line: string) => s.t.logs().split('\n').filter((l) => l.includes(line)).length;
  const timed = async <T>(f: () => Promise<T>): Promise<T & { ms: number }> => {
    const started = Date.now();
    const res = await f();
    return { ...res, ms: Date.now() - started };
  };

  it('answers 503 with Retry-After while it is cut, logged once, keeps calls and searches going, and is whole again once it is back', async () => {
    const auditBefore = await s.t.runtime.prisma.auditEvent.count({ where: { action: 'tool.call', tenantId: s.a.tenantId } });
    await s.proxy.cut();

    const refused = [
      await timed(() => s.t.request('GET', '/api/v1/servers', { key: s.a.key })),
      await timed(() => s.t.request('GET', `/api/v1/servers/${s.serverId}`)),
      await timed(() => s.t.request('POST', '/api/v1/tenants', { body: { name: 'during-the-outage' } })),
      await timed(() => s.t.request('GET', '/api/v1/audit')),
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
    expect(found.body.results[0]).toMatchObject({ serverId: s.serverId, tool: { name: 'echo' } });

    const ready = await s.t.request('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toMatchObject({ database: 'down' });

    expect(count(DB_DOWN)).toBe(1);
    expect(count(DB_UP)).toBe(0);
    expect(count('unhandled error')).toBe(0);

    await s.proxy.restore();
    await eventually('ready again', async () => (await s.t.request('GET', '/health/ready')).status === 200, 30_000);
    await eventually('the end of the outage logged', async () => count(DB_UP) > 0, 10_000);
    expect(count(DB_DOWN)).toBe(1);
    expect(count(DB_UP)).toBe(1);
    expect((await s.t.request('GET', '/api/v1/servers', { key: s.a.key })).status).toBe(200);
    // Nothing lost: the calls made during the outage are in the audit log.
    await eventually(
      'the audit records of the calls made during the outage',
      async () => (await s.t.runtime.prisma.auditEvent.count({ where: { action: 'tool.call', tenantId: s.a.tenantId } })) >= auditBefore + 3,
      15_000,
    );
  });
});
