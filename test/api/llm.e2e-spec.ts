import { randomUUID } from 'node:crypto';
import { useTestApp } from '../support/app';
import { expectProblem, fields, makeTenant, TenantKey } from '../support/tenants';

const INFO_FIELDS = ['availableTools', 'capabilities', 'kind', 'metadata', 'name', 'serverId', 'status', 'version'];

describe('LLM-facing RPC: mcp-get-server-info and mcp-list-servers', () => {
  const t = useTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '*.example.com' } });
  let a: TenantKey;
  let b: TenantKey;
  let builtIn: string;
  let custom: string;

  beforeAll(async () => {
    a = await makeTenant(t);
    b = await makeTenant(t);
    builtIn = (await t.request('POST', '/api/v1/servers', { body: { name: 'catalog', transport: 'sse', url: 'https://c.example.com', metadata: { vendor: 'acme' } } })).body.id;
    custom = (await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'mine', transport: 'sse', url: 'https://m.example.com' } })).body.id;
    // What a finished discovery leaves behind.
    await t.runtime.prisma.server.update({
      where: { id: builtIn },
      data: {
        status: 'CONNECTED',
        statusReason: null,
        serverVersion: '1.2.3',
        capabilities: { tools: { listChanged: true }, resources: {}, prompts: {}, logging: {} },
        toolCount: 2,
      },
    });
    await t.runtime.prisma.tool.createMany({
      data: [
        { id: randomUUID(), serverId: builtIn, name: 'search', title: 'Search', description: 'Finds things', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, outputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, hash: 'a', position: 0 },
        { id: randomUUID(), serverId: builtIn, name: 'create', inputSchema: { type: 'object' }, hash: 'b', position: 1 },
      ],
    });
  });

  const info = (key: string | undefined, body: unknown) => t.request('POST', '/api/v1/llm/mcp-get-server-info', { key, body });
  const list = (key: string | undefined, body: unknown) => t.request('POST', '/api/v1/llm/mcp-list-servers', { key, body });

  it('answers exactly the reference fields, enums as canonical names', async () => {
    const res = await info(a.key, { serverId: builtIn });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(INFO_FIELDS);
    expect(res.body).toEqual({
      serverId: builtIn,
      name: 'catalog',
      version: '1.2.3',
      capabilities: ['tools', 'resources', 'prompts', 'logging'],
      metadata: { vendor: 'acme' },
      status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
      availableTools: [
        { name: 'search', title: 'Search', description: 'Finds things', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, outputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
        { name: 'create', inputSchema: { type: 'object' } },
      ],
      kind: 'MCP_SERVER_KIND_BUILT_IN',
    });
  });

  it('shows an undiscovered server with empty discovered fields and a status that says why', async () => {
    const res = await info(a.key, { serverId: custom });
    expect(res.body).toEqual({
      serverId: custom,
      name: 'mine',
      version: '',
      capabilities: [],
      metadata: {},
      status: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING',
      availableTools: [],
      kind: 'MCP_SERVER_KIND_CUSTOM',
    });
  });

  it("answers 404 for an unknown server and for another tenant's", async () => {
    expectProblem(await info(a.key, { serverId: randomUUID() }), 404);
    // What is not an id at all is refused as mcp-call-tool refuses it.
    expectProblem(await info(a.key, { serverId: 'no-such-server' }), 400);
    expectProblem(await info(b.key, { serverId: custom }), 404);
    expect((await info(undefined, { serverId: custom })).status).toBe(200);
  });

  it('refuses malformed requests with 400 naming the field', async () => {
    for (const body of [{}, { serverId: 5 }, { serverId: null }, { serverId: '' }, { serverId: builtIn, extra: 1 }, { serverId: 'x'.repeat(101) }]) {
      const res = await info(a.key, body);
      expectProblem(res, 400);
      expect(fields(res.body).length).toBeGreaterThan(0);
    }
  });

  it('lists what the caller may see, with tools, filtered by kind and status as names or numbers', async () => {
    // The platform's INTERNAL servers (the registry's own MCP server) are listed too; these tests look past them.
    const ours = (res: { body: { servers: { serverId: string; kind: string }[] } }) =>
      res.body.servers.filter((s) => s.kind !== 'MCP_SERVER_KIND_INTERNAL').map((s) => s.serverId);
    const all = await list(a.key, {});
    expect(all.status).toBe(200);
    expect(ours(all)).toEqual([builtIn, custom]);
    for (const s of all.body.servers) expect(Object.keys(s).sort()).toEqual(INFO_FIELDS);
    expect(all.body.servers.find((s: { serverId: string }) => s.serverId === builtIn).availableTools).toHaveLength(2);
    expect(ours(await list(b.key, {}))).toEqual([builtIn]);

    for (const kind of ['MCP_SERVER_KIND_CUSTOM', 3]) {
      const res = await list(a.key, { kind });
      expect(res.body.servers.map((s: { serverId: string }) => s.serverId)).toEqual([custom]);
    }
    for (const status of ['MCP_SERVER_CONNECTION_STATUS_CONNECTED', 1]) {
      const res = await list(a.key, { status });
      expect(res.body.servers.map((s: { serverId: string }) => s.serverId)).toEqual([builtIn]);
    }
    expect((await list(a.key, { kind: 5 })).body).toEqual({ servers: [] });
  });

  it('pages with nextPageToken', async () => {
    const all = (await list(a.key, { pageSize: 100 })).body.servers.map((s: { serverId: string }) => s.serverId);
    const paged: string[] = [];
    let pageToken: string | undefined;
    do {
      const res = await list(a.key, { pageSize: 1, ...(pageToken ? { pageToken } : {}) });
      expect(res.body.servers).toHaveLength(1);
      paged.push(res.body.servers[0].serverId);
      pageToken = res.body.nextPageToken;
    } while (pageToken);
    expect(paged).toEqual(all);
    expect(paged).toEqual(expect.arrayContaining([builtIn, custom]));
  });

  it('refuses bad enum values, page sizes and tokens', async () => {
    for (const body of [
      { kind: 'MCP_SERVER_KIND_NOPE' },
      { kind: 0 },
      { kind: 6 },
      { kind: 2.5 },
      { kind: true },
      { kind: null },
      { status: 'CONNECTED_ISH' },
      { status: 5 },
      { status: [1] },
      { pageSize: 0 },
      { pageSize: 101 },
      { pageSize: '10' },
      { pageToken: 42 },
      { pageToken: 'garbage' },
      { page: 1 },
    ]) {
      const res = await list(a.key, body);
      expectProblem(res, 400);
    }
  });
});
