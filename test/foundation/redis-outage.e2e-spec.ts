import { startCallFixture } from '../llm/call-fixtures';
import { eventually } from '../llm/helpers';
import { startRedisProxy } from '../fixtures/tcp-proxy';
import { startTestApp } from '../support/app';
import { useStand } from '../support/stand';
import { redisUrl } from '../support/database';
import { ENQUEUE_TIMEOUT_MS } from '@app/queue';

const REDIS_DOWN = 'Redis does not answer';
const REDIS_UP = 'Redis answers again';

/**
 * Redis taken away from one registry (a proxy of the test's own between the platform and this machine's Redis,
 * cut and restored; the shared Redis itself is never touched). PostgreSQL is the source of truth: a write that
 * committed answers promptly instead of waiting for the queue, calls are limited in the process, readiness says
 * the queue is down, the outage is logged once as it starts and once as it ends, and once Redis is back the
 * sweep queues what the queue missed.
 */
(redisUrl() ? describe : describe.skip)('a Redis outage (needs TEST_REDIS_URL)', () => {
  const s = useStand(async (keep) => {
    const proxy = keep(await startRedisProxy(redisUrl()!));
    const fixture = keep(await startCallFixture());
    // The sweep runs every tenth of the interval (at least every 5 s): what the queue missed is queued soon after.
    const t = keep(await startTestApp({ env: { REDIS_URL: `redis://${proxy.address}`, DISCOVERY_INTERVAL_SECONDS: '50' } }));
    // Redis answers again before the registry closes.
    keep(proxy, (p) => p.restore().catch(() => undefined));
    const created = await t.request('POST', '/api/v1/servers', { body: { name: 'before-the-outage', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url } });
    expect(created.status).toBe(201);
    return { proxy, fixture, t, serverId: created.body.id as string };
  });
  beforeAll(async () => {
    await eventually('the server callable', async () => (await call()).status === 200);
  });

  const call = () => s.t.request('POST', '/api/v1/llm/mcp-call-tool', { body: { serverId: s.serverId, toolName: 'echo', arguments: { message: 'hi' } } });
  const count = (line: string) => s.t.logs().split('\n').filter((l) => l.includes(line)).length;
  /** A request that gives up after 15 s (a request waiting on Redis would otherwise wait until it is back). */
  async function timed(method: string, path: string, body?: unknown): Promise<{ status: number; ms: number; body: any }> {
    const started = Date.now();
    const res = await fetch(s.t.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${s.t.adminKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return { status: res.status, ms: Date.now() - started, body: text.startsWith('{') ? JSON.parse(text) : text };
  }

  it('answers writes, calls, readiness and metrics promptly while Redis is cut, logs it once, and loses nothing once it is back', async () => {
    await s.proxy.cut();
    const bound = ENQUEUE_TIMEOUT_MS + 2000;

    // A registration commits and answers, without waiting for the queue.
    const created = await timed('POST', '/api/v1/servers', { name: 'during-the-outage', kind: 'BUILT_IN', transport: 'streamable-http', url: s.fixture.url });
    expect(created.status).toBe(201);
    expect(created.ms).toBeLessThan(bound);
    const discover = await timed('POST', `/api/v1/servers/${s.serverId}/discover`);
    expect(discover.status).toBe(202);
    expect(discover.ms).toBeLessThan(bound);

    // Calls go on (their rate limit is kept in the process meanwhile).
    const called = await timed('POST', '/api/v1/llm/mcp-call-tool', { serverId: s.serverId, toolName: 'echo', arguments: { message: 'still here' } });
    expect(called.status).toBe(200);
    expect(called.ms).toBeLessThan(bound);

    const ready = await timed('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toMatchObject({ database: 'up', queue: 'down' });
    expect(ready.ms).toBeLessThan(bound);
    const metrics = await timed('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.ms).toBeLessThan(bound);

    for (let i = 0; i < 5; i++) expect((await timed('POST', '/api/v1/llm/mcp-call-tool', { serverId: s.serverId, toolName: 'echo', arguments: { message: `${i}` } })).status).toBe(200);
    await eventually('the outage logged', async () => count(REDIS_DOWN) > 0);
    expect(count(REDIS_DOWN)).toBe(1);
    expect(count(REDIS_UP)).toBe(0);

    await s.proxy.restore();
    await eventually('ready again', async () => (await s.t.request('GET', '/health/ready')).status === 200, 30_000);
    await eventually('the end of the outage logged', async () => count(REDIS_UP) > 0);
    expect(count(REDIS_DOWN)).toBe(1);
    expect(count(REDIS_UP)).toBe(1);
    // Nothing lost: the server registered while the queue was away is discovered (the sweep queued it).
    await eventually(
      'the server registered during the outage connected',
      async () => (await s.t.request('GET', `/api/v1/servers/${created.body.id}`)).body.status === 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
      30_000,
    );
  });
});
