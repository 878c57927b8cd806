import { expectProblem, makeTenant } from '../support/tenants';
import { useStand } from '../support/stand';
import { startTestApp, TestApp } from '../support/app';
import { hasPostgres } from '../support/database';
import { startCallFixture, startEverything } from './call-fixtures';
import { eventually, mcpClient, registerAndDiscover, structured } from './helpers';

interface Result {
  serverId: string;
  serverName: string;
  tool: { name: string; description?: string; inputSchema: Record<string, unknown> };
  score: number;
  confidence: 'high' | 'medium' | 'low';
}

describe('tool search: mcp-search-tools, on every replica', () => {
  const s = useStand(async (keep) => {
    const [fixture, everything] = await Promise.all([startCallFixture(), startEverything()]);
    keep(everything);
    keep(fixture);
    const first = keep(await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } }));
    // Another API replica on the same database, without a worker: it learns of changes only through the database.
    // A second replica: on PostgreSQL only (the embedded database belongs to one process).
    const second = hasPostgres() ? keep(await startTestApp({ worker: false, database: first.database, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } })) : undefined;
    const a = await makeTenant(first);
    const b = await makeTenant(first);
    const fixtureId = (await registerAndDiscover(first, { name: 'tenant-a-tools', transport: 'streamable-http', url: fixture.url }, a.key)).id;
    /** The second replica where there is one, else the first. */
    const other = second ?? first;
    return { first, other, everything, a, b, fixtureId };
  });

  const search = async (t: TestApp, key: string | null, body: Record<string, unknown>) => t.request('POST', '/api/v1/llm/mcp-search-tools', { key, body });
  const results = async (t: TestApp, key: string, body: Record<string, unknown>): Promise<Result[]> => {
    const res = await search(t, key, body);
    if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
    return res.body.results;
  };

  it("scopes results to the caller: a tenant finds its own tools and the platform's, never another tenant's", async () => {
    const mine = await eventually('tenant A to find its echo tool', async () => {
      const r = await results(s.first, s.a.key, { query: 'echo the message back' });
      return r.some((x) => x.serverId === s.fixtureId) ? r : undefined;
    });
    expect(mine[0]).toMatchObject({ serverId: s.fixtureId, serverName: 'tenant-a-tools', tool: { name: 'echo', description: 'Echo the message back' } });
    expect(mine[0].tool.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(mine[0].score).toBeGreaterThan(0);

    for (const t of [s.first, s.other]) {
      const theirs = await results(t, s.b.key, { query: 'echo the message back', limit: 50 });
      expect(theirs.some((x) => x.serverId === s.fixtureId)).toBe(false);
    }
    // The registry's own tools are the platform's: every tenant finds them.
    const platform = await results(s.first, s.b.key, { query: 'find tools for a task', limit: 5 });
    expect(platform.some((x) => x.serverName === 'mcp-registry' && x.tool.name === 'search_tools')).toBe(true);
    // The administrator sees everything.
    expect((await results(s.first, s.first.adminKey, { query: 'echo the message back' })).some((x) => x.serverId === s.fixtureId)).toBe(true);
  });

  it('says how sure each result is, and answers a request that shares no word with any tool with guesses marked low, over RPC and /mcp', async () => {
    const hit = await eventually('tenant A to find its echo tool', async () => {
      const r = await results(s.first, s.a.key, { query: 'echo the message back' });
      return r[0]?.serverId === s.fixtureId ? r : undefined;
    });
    expect(hit[0].confidence).toBe('high');
    expect(hit.every((x) => ['high', 'medium', 'low'].includes(x.confidence))).toBe(true);

    // no tool has any of these words, in any spelling: the answer is not empty, and every result says it is a guess
    const guess = await results(s.first, s.a.key, { query: 'qwzx vbnmk plorf', limit: 5 });
    expect(guess.length).toBeGreaterThan(0);
    expect(guess.every((x) => x.confidence === 'low' && x.score === 0)).toBe(true);

    const client = await mcpClient(s.first, s.a.key);
    try {
      const viaMcp = structured<{ results: Result[] }>(await client.callTool({ name: 'search_tools', arguments: { query: 'echo the message back' } }));
      expect(viaMcp.results[0]).toMatchObject({ serverId: s.fixtureId, tool: { name: 'echo' }, confidence: 'high' });
      const guessViaMcp = structured<{ results: Result[] }>(await client.callTool({ name: 'search_tools', arguments: { query: 'qwzx vbnmk plorf' } }));
      expect(guessViaMcp.results.length).toBeGreaterThan(0);
      expect(guessViaMcp.results.every((x) => x.confidence === 'low')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('filters by kind and by server, and bounds the answer by limit', async () => {
    const custom = await results(s.first, s.a.key, { query: 'tools', kinds: ['MCP_SERVER_KIND_CUSTOM'], limit: 50 });
    expect(custom.length).toBeGreaterThan(0);
    expect(custom.every((x) => x.serverId === s.fixtureId)).toBe(true);
    const internal = await results(s.first, s.a.key, { query: 'tools', kinds: [1], limit: 50 });
    expect(internal.every((x) => x.serverName === 'mcp-registry')).toBe(true);
    const byServer = await results(s.first, s.a.key, { query: 'message session progress', serverIds: [s.fixtureId], limit: 2 });
    expect(byServer).toHaveLength(2);
    expect(byServer.every((x) => x.serverId === s.fixtureId)).toBe(true);
  });

  const replicas = hasPostgres() ? it : it.skip;
  replicas('makes a tool discovered a moment ago searchable within seconds on another replica, and forgets it there when its server goes (skipped without PostgreSQL: the embedded database belongs to one process)', async () => {
    const second = s.other;
    const created = await s.first.request('POST', '/api/v1/servers', {
      key: s.a.key,
      body: { name: 'everything', transport: 'streamable-http', url: s.everything.url },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    await eventually('server-everything discovered', async () => {
      const server = await s.first.request('GET', `/api/v1/servers/${id}`, { key: s.a.key });
      return server.body.status === 'MCP_SERVER_CONNECTION_STATUS_CONNECTED';
    });
    const discoveredAt = Date.now();
    const found = await eventually(
      'the new tool on the second replica',
      async () => {
        const r = await results(second, s.a.key, { query: 'add two numbers', serverIds: [id] });
        return r.length > 0 ? r : undefined;
      },
      5000,
    );
    expect(Date.now() - discoveredAt).toBeLessThan(5000);
    expect(found[0].tool.name).toBe('get-sum');
    // The replica can call it at once too.
    const called = await second.request('POST', '/api/v1/llm/mcp-call-tool', {
      key: s.a.key,
      body: { serverId: id, toolName: 'get-sum', arguments: { a: 2, b: 3 } },
    });
    expect(called.status).toBe(200);
    expect(JSON.stringify(called.body.content)).toContain('5');

    expect((await s.first.request('DELETE', `/api/v1/servers/${id}`, { key: s.a.key })).status).toBe(204);
    await eventually(
      'the deleted server to leave the second replica',
      async () => (await results(second, s.a.key, { query: 'add two numbers', serverIds: [id] })).length === 0,
      5000,
    );
  });

  it('drops the tools of a disabled server and brings them back once it is connected again', async () => {
    const off = await s.first.request('PATCH', `/api/v1/servers/${s.fixtureId}`, { key: s.a.key, body: { enabled: false } });
    expect(off.status).toBe(200);
    await eventually(
      'the disabled server to leave search',
      async () => !(await results(s.other, s.a.key, { query: 'echo the message back', limit: 50 })).some((x) => x.serverId === s.fixtureId),
      5000,
    );
    const on = await s.first.request('PATCH', `/api/v1/servers/${s.fixtureId}`, { key: s.a.key, body: { enabled: true } });
    expect(on.status).toBe(200);
    await eventually(
      'the enabled server back in search',
      async () => (await results(s.other, s.a.key, { query: 'echo the message back', limit: 50 })).some((x) => x.serverId === s.fixtureId),
      15_000,
    );
  });

  it('refuses bad input with 400 naming the field, and a missing key with 401', async () => {
    for (const [body, field] of [
      [{}, 'query'],
      [{ query: '' }, 'query'],
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', limit: 51 }, 'limit'],
      [{ query: 'x', kinds: ['MCP_SERVER_KIND_NOPE'] }, 'kinds'],
      [{ query: 'x', serverIds: ['nope'] }, 'serverIds'],
      [{ query: 'x', surprise: true }, 'surprise'],
    ] as const) {
      const res = await search(s.first, s.a.key, body);
      expectProblem(res, 400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expectProblem(await search(s.first, null, { query: 'x' }), 401);
  });
});
