import type { Client as Client2 } from '@modelcontextprotocol/client';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { startRoundRobinProxy } from '../fixtures/round-robin-proxy';
import { listeningUrl, processStand, startApi } from '../foundation/app-process';
import { eventually } from '../llm/helpers';
import { hasPostgres, redisUrl } from '../support/database';
import { sdk1Client, sdk2Client } from '../support/mcp-clients';
import { useStand } from '../support/stand';

const REQUESTS = 100;
const TOOLS = ['call_tool', 'get_server_info', 'list_servers', 'search_tools'];

/**
 * Two API processes (dist/) on one database behind a round-robin of the test's own that sends each request to
 * the other replica: one client's requests alternate replicas and every one of them succeeds, in both eras,
 * and a change stream held by one replica hears of a server registered through the other.
 */
(hasPostgres() ? describe : describe.skip)('/mcp on two replicas with no session affinity (needs TEST_DATABASE_URL)', () => {
  const adminKey = 'mcpr_admin_' + randomBytes(18).toString('base64url');
  const credentialsKey = randomBytes(32).toString('base64');
  const clients: { close(): Promise<void> }[] = [];

  const rest = async (base: string, method: string, path: string, body: unknown, bearer = adminKey) => {
    const res = await fetch(base + path, { method, headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as any;
  };

  const s = useStand(async (keep) => {
    const { fixture, db, dataDir } = await processStand(keep, 'mcpr-replica');
    const replica = async (worker: boolean, port: number): Promise<string> => {
      const p = startApi({
        DATA_DIR: dataDir(worker ? 'with-worker' : 'api'),
        DATABASE_URL: db.url!,
        PORT: String(port),
        ADMIN_API_KEY: adminKey,
        CREDENTIALS_KEY: credentialsKey,
        WORKER_ENABLED: String(worker),
        MCP_OUTBOUND_ALLOW: '127.0.0.1',
        ...(redisUrl() ? { REDIS_URL: redisUrl()!, QUEUE_PREFIX: `mcprr${process.pid}` } : {}),
      });
      return listeningUrl(p, 60_000);
    };
    // One after the other: the first applies the migrations.
    const first = await replica(true, 0);
    const second = await replica(false, 0);
    const proxy = keep(await startRoundRobinProxy([first, second]));
    keep(clients, async (opened) => {
      for (const c of opened) await c.close().catch(() => undefined);
    });
    const tenant = await rest(first, 'POST', '/api/v1/tenants', { name: 'replicated' });
    const key: string = (await rest(first, 'POST', `/api/v1/tenants/${tenant.id}/api-keys`, { name: 'replicas' })).key;
    return { fixture, proxy, key };
  }, 120_000);

  /**
   * 100 requests of one client, alternating two tool calls (a 2026-07-28 client keeps tools/list for its ttlMs
   * and would not send it again); every one succeeds, on both replicas.
   */
  interface Caller {
    listTools(): Promise<{ tools: { name: string }[] }>;
    callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  }
  async function hundred(client: Caller): Promise<void> {
    expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual(TOOLS);
    const from = s.proxy.served.length;
    for (let i = 0; i < REQUESTS; i++) {
      const call = i % 2 === 0 ? { name: 'list_servers', arguments: { pageSize: 5 } } : { name: 'search_tools', arguments: { query: `request ${i}`, limit: 1 } };
      const answer = (await client.callTool(call)) as { isError?: boolean; structuredContent?: Record<string, unknown> };
      expect(answer.isError).toBeFalsy();
      expect(answer.structuredContent).toEqual(expect.objectContaining(i % 2 === 0 ? { servers: expect.any(Array) } : { results: expect.any(Array) }));
    }
    const posts = s.proxy.served.slice(from).filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(REQUESTS);
    expect(posts.every((s) => s.status === 200)).toBe(true);
    // Each request went to the other replica than the one before it (a GET stream opened meanwhile may take a turn).
    const perReplica = [0, 1].map((r) => posts.filter((s) => s.target === r).length);
    expect(Math.min(...perReplica)).toBeGreaterThanOrEqual(REQUESTS / 2 - 1);
  }

  it('serves 100 consecutive requests of a 2025-era client (TypeScript SDK 1.x) across both replicas', async () => {
    const client = await sdk1Client(`${s.proxy.url}/mcp`, s.key);
    clients.push(client);
    await hundred(client);
  });

  it('serves 100 consecutive requests of a 2026-07-28 client (TypeScript SDK 2.x, pinned) across both replicas', async () => {
    const client: Client2 = await sdk2Client(`${s.proxy.url}/mcp`, s.key, 'pinned');
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await hundred(client);
  });

  it('tells clients whose change stream is on either replica of a server registered through the other', async () => {
    const heard = { v1: 0, v2: 0 };
    const v1 = await sdk1Client(`${s.proxy.url}/mcp`, s.key);
    clients.push(v1);
    v1.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.v1++);
    const v2 = await sdk2Client(`${s.proxy.url}/mcp`, s.key, 'pinned');
    clients.push(v2);
    v2.setNotificationHandler('notifications/resources/list_changed', () => void heard.v2++);
    await v2.listen({ resourcesListChanged: true });
    const stream = await eventually('the GET stream to be open', async () => s.proxy.served.find((r) => r.method === 'GET' && r.path === '/mcp' && r.status === 200), 10_000);
    // Registered through the replica that does not hold the 2025-era stream (a request to the other one first
    // when it is its turn); discovered by the first replica's worker; the change reaches the other through PostgreSQL.
    if (s.proxy.nextTarget() === stream.target) await fetch(`${s.proxy.url}/health/live`);
    const created = await fetch(`${s.proxy.url}/api/v1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'echoes', transport: 'streamable-http', url: s.fixture.url }),
    });
    expect(created.status).toBe(201);
    const registration = s.proxy.served.filter((r) => r.path === '/api/v1/servers').pop()!;
    expect(registration.target).not.toBe(stream.target);
    await eventually('both clients to hear of the new server', async () => heard.v1 > 0 && heard.v2 > 0, 30_000);
  });
});
