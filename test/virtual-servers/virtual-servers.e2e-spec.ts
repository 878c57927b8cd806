import { ToolRepository } from '@app/database';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { McpChangeStreams } from '../../apps/api/src/mcp/mcp-change-streams.service';
import { everythingStdio, memoryStdio } from '../fixtures/reference-servers';
import { startTestApp, TestApp } from '../support/app';
import { registerServer, settled, waitFor } from '../support/servers';
import { tempDir, useStand } from '../support/stand';
import { expectProblem, fields, makeTenant } from '../support/tenants';
import { inspector, inspectorCall, pythonClient, pythonMcp, sdk1Client, sdk2Client } from '../support/mcp-clients';
import { rpc } from './clients';

type Text = { type: string; text?: string };

describe('virtual servers made of server-everything (stdio) and server-memory, through real clients', () => {
  const s = useStand(async (keep) => {
    const memoryDir = tempDir(keep, 'mcpr-virtual-memory-');
    const t = keep(await startTestApp({ env: { DISCOVERY_TIMEOUT_MS: '20000' } }));
    const [a, b] = await Promise.all([makeTenant(t), makeTenant(t)]);
    const everything = (await registerServer(t, { name: 'everything', kind: 'BUILT_IN', transport: 'stdio', ...everythingStdio() })).id;
    const memory = (
      await registerServer(t, { name: 'memory', kind: 'BUILT_IN', transport: 'stdio', ...memoryStdio(), env: { MEMORY_FILE_PATH: join(memoryDir, 'memory.jsonl') } })
    ).id;
    for (const id of [everything, memory]) expect((await settled(t, id, 60_000)).status).toBe('CONNECTED');
    const made = await t.request('POST', '/api/v1/virtual-servers', { key: a.key, body: { name: 'assistant', description: 'Echo and remember', servers: [everything, memory] } });
    expect(made.status).toBe(201);
    const virtualId: string = made.body.id;
    // Each replica's tool catalog hears of a discovery within about a second.
    await waitFor('both members listed', async () => {
      const listed = await t.request('GET', `/api/v1/virtual-servers/${virtualId}/tools`, { key: a.key });
      const servers = new Set((listed.body.tools as { serverId: string }[]).map((x) => x.serverId));
      return servers.has(everything) && servers.has(memory);
    });
    return { t, a, b, everything, memory, virtualId };
  }, 120_000);
  const vurl = (id: string) => `${s.t.baseUrl}/mcp/v/${id}`;

  it('answers the virtual server as made, and records its making in the audit log', async () => {
    const got = await s.t.request('GET', `/api/v1/virtual-servers/${s.virtualId}`, { key: s.a.key });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: s.virtualId, name: 'assistant', description: 'Echo and remember', tenantId: s.a.tenantId, servers: [s.everything, s.memory], tools: [], endpoint: `/mcp/v/${s.virtualId}` });
    const list = await s.t.request('GET', '/api/v1/virtual-servers', { key: s.a.key });
    expect(list.body.virtualServers.map((v: { id: string }) => v.id)).toEqual([s.virtualId]);
    const audit = await s.t.request('GET', `/api/v1/audit?resourceId=${s.virtualId}`);
    expect(audit.body.events).toEqual([expect.objectContaining({ action: 'virtual-server.create', tenantId: s.a.tenantId, detail: { name: 'assistant', servers: 2, tools: 0 } })]);
  });

  it('lists and calls the tools of both servers through the TypeScript SDK 1.x client', async () => {
    const client = await sdk1Client(vurl(s.virtualId), s.a.key);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((x) => x.name);
      expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'memory__create_entities', 'memory__read_graph']));
      for (const n of names) expect(n).toMatch(/^(everything|memory)__[A-Za-z0-9_-]+$/);
      expect(new Set(names).size).toBe(names.length);
      // Members in the order given: every tool of the first before any of the second.
      const lastEverything = names.map((n) => n.startsWith('everything__')).lastIndexOf(true);
      expect(names.findIndex((n) => n.startsWith('memory__'))).toBe(lastEverything + 1);
      const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'hello from a virtual server' } });
      expect((echo.content as Text[])[0].text).toContain('hello from a virtual server');
      await client.callTool({ name: 'memory__create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] } });
      const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
      expect(JSON.stringify(graph.content)).toContain('wrote the first program');
    } finally {
      await client.close();
    }
  });

  it("federates server-everything's resources, templates and prompts with URIs that read back through it (SDK 1.x)", async () => {
    const client = await sdk1Client(vurl(s.virtualId), s.a.key);
    try {
      const all = (await client.listResources()).resources;
      // Each member's URIs with its prefix after the scheme: server-everything's demo://, server-memory's memory://.
      for (const r of all) expect(r.uri).toMatch(/^(demo:\/\/everything\/resource\/|memory:\/\/memory\/)/);
      const resources = all.filter((r) => r.uri.startsWith('demo://'));
      expect(resources.length).toBeGreaterThan(0);
      const read = await client.readResource({ uri: resources[0].uri });
      expect(read.contents[0].uri).toBe(resources[0].uri);
      expect(JSON.stringify(read.contents[0])).toMatch(/"(text|blob)":/);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((x) => x.uriTemplate)).toContain('demo://everything/resource/dynamic/text/{resourceId}');
      // A URI one of its templates expands to reads through too.
      const dynamic = await client.readResource({ uri: 'demo://everything/resource/dynamic/text/7' });
      expect(dynamic.contents[0].uri).toBe('demo://everything/resource/dynamic/text/7');
      const { prompts } = await client.listPrompts();
      expect(prompts.map((x) => x.name)).toEqual(expect.arrayContaining(['everything__simple-prompt', 'everything__resource-prompt']));
      const simple = await client.getPrompt({ name: 'everything__simple-prompt' });
      expect(simple.messages.length).toBeGreaterThan(0);
      // An embedded resource in a prompt carries the rewritten URI, so that reading it comes back here.
      const embedded = await client.getPrompt({ name: 'everything__resource-prompt', arguments: { resourceType: 'Text', resourceId: '3' } });
      const uris = embedded.messages.flatMap((m) => ('resource' in m.content ? [(m.content as { resource: { uri: string } }).resource.uri] : []));
      expect(uris).toEqual(['demo://everything/resource/dynamic/text/3']);
      // What it did not list is not read, not even a URI of the member written as the member writes it.
      await expect(client.readResource({ uri: 'demo://resource/dynamic/text/7' })).rejects.toThrow(/not found/);
    } finally {
      await client.close();
    }
  });

  for (const mode of ['pinned', 'auto'] as const) {
    it(`lists and calls its tools through the 2.x client ${mode === 'pinned' ? 'in 2026-07-28-only mode' : 'in auto mode'}, on 2026-07-28`, async () => {
      const client = await sdk2Client(vurl(s.virtualId), s.a.key, mode);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        const { tools } = await client.listTools();
        expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(['everything__echo', 'memory__read_graph']));
        const sum = await client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 40 } });
        expect(JSON.stringify(sum.content)).toContain('42');
        const read = await client.readResource({ uri: 'demo://everything/resource/dynamic/text/5' });
        expect(read.contents[0].uri).toBe('demo://everything/resource/dynamic/text/5');
      } finally {
        await client.close();
      }
    });
  }

  it('lists and calls its tools through inspector-cli', async () => {
    const listed = await inspector(vurl(s.virtualId), s.a.key, ['--method', 'tools/list']);
    expect(listed.tools.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(['everything__echo', 'memory__read_graph']));
    const called = await inspectorCall(vurl(s.virtualId), s.a.key, 'everything__echo', { message: 'from the inspector' });
    expect(JSON.stringify(called.content)).toContain('from the inspector');
    const read = await inspector(vurl(s.virtualId), s.a.key, ['--method', 'resources/read', '--uri', 'demo://everything/resource/dynamic/text/9']);
    expect(read.contents[0].uri).toBe('demo://everything/resource/dynamic/text/9');
  });

  const py = pythonMcp();
  for (const era of ['initialize', 'discover'] as const) {
    const name = `lists and calls its tools and reads a resource through the Python MCP SDK (${era})`;
    if ('missing' in py) {
      it.skip(`${name}: skipped, ${py.missing}`, () => undefined);
      continue;
    }
    it(name, async () => {
      const uri = 'demo://everything/resource/dynamic/text/4';
      const out = await pythonClient(py.python, vurl(s.virtualId), s.a.key, era, 'everything__echo', { message: `from python ${era}` }, uri);
      expect(out.protocolVersion).toBe(era === 'discover' ? '2026-07-28' : '2025-11-25');
      expect(out.tools).toEqual(expect.arrayContaining(['everything__echo', 'memory__read_graph']));
      expect(JSON.stringify(out.result.content)).toContain(`from python ${era}`);
      expect(out.resource.contents[0].uri).toBe(uri);
    });
  }

  it('answers a name it does not list as an unknown tool (invalid params)', async () => {
    const unknown = await rpc(s.t, `/mcp/v/${s.virtualId}`, s.a.key, 'tools/call', { name: 'everything__no-such-tool', arguments: {} });
    expect(unknown.body.error).toMatchObject({ code: -32602 });
    expect(unknown.body.error.message).toContain('everything__no-such-tool');
  });

  it("finds the tool called among its member's tools only, never listing the other members'", async () => {
    // No change stream reads the members' tools meanwhile.
    await waitFor('no change stream open', async () => streamCount(s.t) === 0, 10_000, 20);
    const repository = s.t.app.get(ToolRepository, { strict: false });
    const read = jest.spyOn(repository, 'listServedByServers');
    try {
      const called = await rpc(s.t, `/mcp/v/${s.virtualId}`, s.a.key, 'tools/call', { name: 'memory__read_graph', arguments: {} });
      expect(called.body.result?.isError).toBeFalsy();
      const unknown = await rpc(s.t, `/mcp/v/${s.virtualId}`, s.a.key, 'tools/call', { name: 'everything__no-such-tool', arguments: {} });
      expect(unknown.body.error).toMatchObject({ code: -32602 });
      // A name no member's prefix begins reads nothing at all.
      await rpc(s.t, `/mcp/v/${s.virtualId}`, s.a.key, 'tools/call', { name: 'nobody__echo', arguments: {} });
      expect(read.mock.calls.map((c) => c[0])).toEqual([[s.memory], [s.everything]]);
    } finally {
      read.mockRestore();
    }
  });

  it("keeps a tenant from another tenant's virtual servers and from building on another tenant's servers", async () => {
    expectProblem(await s.t.request('GET', `/api/v1/virtual-servers/${s.virtualId}`, { key: s.b.key }), 404);
    expectProblem(await s.t.request('POST', `/mcp/v/${s.virtualId}`, { key: s.b.key, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } }), 404);
    expect((await s.t.request('GET', '/api/v1/virtual-servers', { key: s.b.key })).body.virtualServers).toEqual([]);
    // What is not an id names nothing: 404 as well, never a 500.
    expectProblem(await s.t.request('POST', '/mcp/v/not-an-id', { key: s.b.key, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } }), 404);
    // Tenant A's own server: tenant B may neither build on it nor tell it from a server that does not exist. It is
    // written disabled, so that no sweep ever queues a discovery of its address (nothing leaves loopback).
    const own = await s.t.runtime.prisma.server.create({
      data: {
        id: randomUUID(),
        tenantId: s.a.tenantId,
        ownerScope: s.a.tenantId,
        name: 'a-private',
        kind: 'CUSTOM',
        transport: 'STREAMABLE_HTTP',
        url: 'https://a.example.com/mcp',
        enabled: false,
        status: 'DISCONNECTED',
      },
    });
    const foreign = await s.t.request('POST', '/api/v1/virtual-servers', { key: s.b.key, body: { name: 'steal', servers: [own.id] } });
    const missing = await s.t.request('POST', '/api/v1/virtual-servers', { key: s.b.key, body: { name: 'steal', servers: [randomUUID()] } });
    expectProblem(foreign, 400);
    expect(fields(foreign.body)).toEqual(['servers.0']);
    expect(foreign.body.errors[0].message).toBe(missing.body.errors[0].message);
    const tool = await s.t.request('POST', '/api/v1/virtual-servers', { key: s.b.key, body: { name: 'steal', tools: [{ serverId: own.id, toolName: 'x' }] } });
    expect(fields(tool.body)).toEqual(['tools.0.serverId']);
    // The platform's virtual servers are made of platform servers only.
    const platform = await s.t.request('POST', '/api/v1/virtual-servers', { body: { name: 'platform-mix', servers: [s.everything, own.id] } });
    expectProblem(platform, 400);
    expect(fields(platform.body)).toEqual(['servers.1']);
    // Tenant B cannot change or delete tenant A's either (404, as if it did not exist).
    expectProblem(await s.t.request('PATCH', `/api/v1/virtual-servers/${s.virtualId}`, { key: s.b.key, body: { name: 'mine' } }), 404);
    expectProblem(await s.t.request('DELETE', `/api/v1/virtual-servers/${s.virtualId}`, { key: s.b.key }), 404);
  });

  it('refuses bad input with problem documents naming each field, and changes nothing', async () => {
    const cases: [unknown, string[]][] = [
      [{ servers: [s.everything] }, ['name']],
      [{ name: 'x', servers: ['not-an-id'] }, ['servers']],
      [{ name: 'x', servers: [s.everything, s.everything] }, ['servers.1']],
      [{ name: 'x', servers: [s.everything], tools: [{ serverId: s.everything, toolName: 'echo' }] }, ['tools.0.serverId']],
      [{ name: 'x', tools: [{ serverId: s.everything, toolName: 'echo' }, { serverId: s.everything, toolName: 'echo' }] }, ['tools.1']],
      [{ name: 'x', tools: [{ serverId: s.everything, toolName: 'no-such-tool' }] }, ['tools.0.toolName']],
      [{ name: 'x' }, ['servers']],
      [{ name: 'x', servers: [s.everything], extra: true }, ['extra']],
    ];
    for (const [body, expected] of cases) {
      const res = await s.t.request('POST', '/api/v1/virtual-servers', { key: s.a.key, body });
      expectProblem(res, 400);
      expect({ body, fields: fields(res.body) }).toEqual({ body, fields: expected });
    }
    expectProblem(await s.t.request('POST', '/api/v1/virtual-servers', { key: s.a.key, body: { name: 'assistant', servers: [s.everything] } }), 409);
    for (const [body, expected] of [
      [{ name: '   ' }, ['name']],
      [{ servers: [] }, ['servers']],
      [{ name: null }, ['name']],
      [{ tools: [{ serverId: s.everything }] }, ['tools.0.toolName']],
    ] as [unknown, string[]][]) {
      const res = await s.t.request('PATCH', `/api/v1/virtual-servers/${s.virtualId}`, { key: s.a.key, body });
      expectProblem(res, 400);
      expect({ body, fields: fields(res.body) }).toEqual({ body, fields: expected });
    }
    const described = await s.t.request('PATCH', `/api/v1/virtual-servers/${s.virtualId}`, { key: s.a.key, body: { description: null } });
    expect(described.body.description).toBeNull();
    expect((await s.t.request('PATCH', `/api/v1/virtual-servers/${s.virtualId}`, { key: s.a.key, body: { description: 'Echo and remember' } })).body).toMatchObject({
      description: 'Echo and remember',
      servers: [s.everything, s.memory],
    });
    expect((await s.t.request('GET', '/api/v1/virtual-servers', { key: s.a.key })).body.virtualServers).toHaveLength(1);
  });

  it("lets the admin make the platform's virtual servers, which every tenant may use and none may change", async () => {
    const made = await s.t.request('POST', '/api/v1/virtual-servers', { body: { name: 'echo-only', tools: [{ serverId: s.everything, toolName: 'echo' }] } });
    expect(made.status).toBe(201);
    expect(made.body.tenantId).toBeNull();
    const client = await sdk1Client(vurl(made.body.id), s.b.key);
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual(['everything__echo']);
    } finally {
      await client.close();
    }
    expectProblem(await s.t.request('PATCH', `/api/v1/virtual-servers/${made.body.id}`, { key: s.b.key, body: { name: 'mine' } }), 403);
    expect((await s.t.request('DELETE', `/api/v1/virtual-servers/${made.body.id}`)).status).toBe(204);
    const audit = await s.t.request('GET', `/api/v1/audit?resourceId=${made.body.id}`);
    expect(audit.body.events.map((e: { action: string }) => e.action)).toEqual(['virtual-server.delete', 'virtual-server.create']);
  });

  it('drops a disabled member from tools/list within seconds and tells connected clients of both eras', async () => {
    const client = await sdk1Client(vurl(s.virtualId), s.a.key);
    const modern = await sdk2Client(vurl(s.virtualId), s.a.key, 'pinned');
    let told = 0;
    let toldModern = 0;
    const notified = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        told++;
        resolve();
      }),
    );
    modern.setNotificationHandler('notifications/tools/list_changed', () => void toldModern++);
    const subscription = await modern.listen({ toolsListChanged: true });
    try {
      expect((await client.listTools()).tools.some((x) => x.name.startsWith('memory__'))).toBe(true);
      // The 2025-era client opens its standalone stream after initialize: both streams are held once there are two.
      await waitFor('the change streams', async () => streamCount(s.t) >= 2, 10_000, 50);
      const started = Date.now();
      expect((await s.t.request('PATCH', `/api/v1/servers/${s.memory}`, { body: { enabled: false } })).status).toBe(200);
      await notified;
      const tookMs = Date.now() - started;
      const { tools } = await client.listTools();
      expect(tools.some((x) => x.name.startsWith('memory__'))).toBe(false);
      expect(tools.some((x) => x.name === 'everything__echo')).toBe(true);
      expect(told).toBe(1);
      expect(tookMs).toBeLessThan(5000);
      await waitFor('the 2026-07-28 subscription to hear of it', async () => toldModern >= 1, 5000, 50);
      expect((await modern.listTools()).tools.some((x) => x.name.startsWith('memory__'))).toBe(false);
      process.stdout.write(`\nlist_changed after disabling a member: ${tookMs} ms\n`);
      // Enabled again: rediscovered, listed again under the same names, and told again.
      expect((await s.t.request('PATCH', `/api/v1/servers/${s.memory}`, { body: { enabled: true } })).status).toBe(200);
      await settled(s.t, s.memory, 60_000);
      await waitFor('a second notification', async () => told >= 2, 15_000);
      expect((await client.listTools()).tools.some((x) => x.name === 'memory__read_graph')).toBe(true);
    } finally {
      await subscription.close();
      await modern.close();
      await client.close();
    }
  }, 90_000);
});

/** Change streams held by the app. */
function streamCount(t: TestApp): number {
  return t.app.get(McpChangeStreams, { strict: false }).size;
}
