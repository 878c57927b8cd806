import { eventually, mcpClient, structured } from '../llm/helpers';
import { useTestApp } from '../support/app';
import { expectProblem, fields, makeTenant, TenantKey } from '../support/tenants';

/** A page token as the registry writes them, with whatever instant and id a forger likes. */
const forgedToken = (list: string, t: string, i = '0190a3c0-0000-7000-8000-000000000000') =>
  Buffer.from(JSON.stringify({ l: list, t, i }), 'utf8').toString('base64url');

describe('input PostgreSQL cannot store, forged page tokens and ids in any case: a 400 naming the field, never a 500', () => {
  const t = useTestApp({ env: { MCP_OUTBOUND_ALLOW: '*.example.com' } });
  let a: TenantKey;
  let serverId: string;
  let internalId: string;

  beforeAll(async () => {
    a = await makeTenant(t);
    const created = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'target', transport: 'sse', url: 'https://t.example.com/sse', enabled: false } });
    expect(created.status).toBe(201);
    serverId = created.body.id;
    internalId = await eventually('the INTERNAL server connected', async () => {
      const res = await t.request('GET', '/api/v1/servers?kind=MCP_SERVER_KIND_INTERNAL');
      const s = res.body.servers?.[0];
      return s?.status === 'MCP_SERVER_CONNECTION_STATUS_CONNECTED' ? (s.id as string) : undefined;
    });
  });

  async function counts() {
    const p = t.runtime.prisma;
    return { servers: await p.server.count(), tenants: await p.tenant.count(), keys: await p.apiKey.count(), audit: await p.auditEvent.count() };
  }

  it('refuses NUL and lone surrogates in query parameters, naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/api/v1/servers?q=%00', 'q'],
      ['/api/v1/servers?q=a%00b', 'q'],
      ['/api/v1/audit?resourceId=%00', 'resourceId'],
      ['/api/v1/audit?action=server.create%00', 'action'],
      ['/api/v1/servers?pageToken=%00', 'pageToken'],
      ['/api/v1/tenants?pageToken=ab%00', 'pageToken'],
      [`/api/v1/servers/${serverId}/discoveries?pageToken=%00`, 'pageToken'],
    ];
    for (const [path, field] of cases) {
      const res = await t.request('GET', path);
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual([field]);
    }
  });

  it('refuses NUL in a path segment', async () => {
    for (const path of [`/api/v1/servers/${serverId}%00`, '/api/v1/servers/%00/tools', '/api/v1/tenants/%00/api-keys']) {
      const res = await t.request('GET', path);
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual(['path']);
    }
  });

  it('refuses NUL and lone surrogates in names, URLs, metadata keys and values and headers, and stores nothing', async () => {
    const before = await counts();
    const base = { transport: 'sse', url: 'https://n.example.com/sse' };
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/v1/tenants', { name: 'acme\ud800' }, 'name'],
      ['POST', '/api/v1/tenants', { name: 'acme\udc00x' }, 'name'],
      ['POST', '/api/v1/tenants', { name: 'ac\u0000me' }, 'name'],
      ['POST', `/api/v1/tenants/${a.tenantId}/api-keys`, { name: 'k\ud800' }, 'name'],
      ['POST', '/api/v1/servers', { ...base, name: 's\ud800' }, 'name'],
      ['POST', '/api/v1/servers', { ...base, name: 's1', url: 'https://n.example.com/\ud800' }, 'url'],
      ['POST', '/api/v1/servers', { ...base, name: 's2', url: 'https://n.example.com/\u0000' }, 'url'],
      ['POST', '/api/v1/servers', { ...base, name: 's3', metadata: { team: 'a\u0000' } }, 'metadata.team'],
      ['POST', '/api/v1/servers', { ...base, name: 's4', metadata: { ['te\u0000am']: 'a' } }, 'metadata.(key)'],
      ['POST', '/api/v1/servers', { ...base, name: 's5', metadata: { team: '\udfff' } }, 'metadata.team'],
      ['POST', '/api/v1/servers', { ...base, name: 's6', headers: { 'X-Team': 'a\ud800' } }, 'headers.X-Team'],
      ['POST', '/api/v1/servers', { ...base, name: 's7', credentials: { bearerToken: 'tok\ud800' } }, 'credentials.bearerToken'],
      ['POST', '/api/v1/servers/batch', { servers: [{ ...base, name: 'b1' }, { ...base, name: 'b2\ud800' }] }, 'servers.1.name'],
      ['PATCH', `/api/v1/servers/${serverId}`, { name: 'renamed\ud800' }, 'name'],
      ['PATCH', `/api/v1/servers/${serverId}`, { metadata: { k: '\u0000' } }, 'metadata.k'],
      ['POST', '/api/v1/llm/mcp-search-tools', { query: 'find\u0000' }, 'query'],
      ['POST', '/api/v1/llm/mcp-call-tool', { serverId, toolName: 'echo', arguments: { text: '\ud800' } }, 'arguments.text'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await t.request(method, path, { key: path.includes('tenants') ? undefined : a.key, body });
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual([field]);
    }
    // A well-formed pair (an emoji) is text like any other.
    const emoji = await t.request('POST', '/api/v1/tenants', { body: { name: 'acme 😀' } });
    expect(emoji.status).toBe(201);
    expect(emoji.body.name).toBe('acme 😀');
    const after = await counts();
    expect(after).toEqual({ ...before, tenants: before.tenants + 1, audit: after.audit });
    expect(after.audit).toBe(before.audit + 1);
    expect(await t.runtime.prisma.tenant.count({ where: { name: { contains: '\ufffd' } } })).toBe(0);
  });

  it('refuses a page token whose instant is outside what a timestamp holds, on every list', async () => {
    const lists: [string, string, string][] = [
      ['GET', '/api/v1/servers?pageToken=', 'servers'],
      ['GET', '/api/v1/tenants?pageToken=', 'tenants'],
      ['GET', '/api/v1/audit?pageToken=', 'audit'],
      ['GET', `/api/v1/servers/${serverId}/discoveries?pageToken=`, 'discovery-runs'],
    ];
    for (const instant of ['-004714-11-23T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '2026-13-45T00:00:00.000Z', '2026-01-01']) {
      for (const [method, prefix, list] of lists) {
        const res = await t.request(method, prefix + forgedToken(list, instant));
        expectProblem(res, 400);
        expect(fields(res.body)).toEqual(['pageToken']);
      }
      const rpc = await t.request('POST', '/api/v1/llm/mcp-list-servers', { key: a.key, body: { pageToken: forgedToken('servers', instant) } });
      expectProblem(rpc, 400);
      expect(fields(rpc.body)).toEqual(['pageToken']);
    }
  });

  it('reads an upper-case id as the same id in REST paths, RPC bodies and /mcp tools', async () => {
    const upper = serverId.toUpperCase();
    const one = await t.request('GET', `/api/v1/servers/${upper}`, { key: a.key });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(serverId);
    expect((await t.request('GET', `/api/v1/servers/${upper}/tools`, { key: a.key })).body.serverId).toBe(serverId);
    expect((await t.request('GET', `/api/v1/servers/${upper}/discoveries`, { key: a.key })).body.serverId).toBe(serverId);
    expect((await t.request('GET', `/api/v1/tenants/${a.tenantId.toUpperCase()}/api-keys`)).status).toBe(200);

    const info = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { key: a.key, body: { serverId: internalId.toUpperCase() } });
    expect(info.status).toBe(200);
    expect(info.body.serverId).toBe(internalId);
    // A connected server's tool is callable by its id in any case (it was a 409 "its status is CONNECTED").
    const call = await t.request('POST', '/api/v1/llm/mcp-call-tool', { key: a.key, body: { serverId: internalId.toUpperCase(), toolName: 'list_servers', arguments: {} } });
    expect(call.status).toBe(200);
    expect(call.body.isError).toBeUndefined();
    const search = await t.request('POST', '/api/v1/llm/mcp-search-tools', { key: a.key, body: { query: 'list servers', serverIds: [internalId.toUpperCase()] } });
    expect(search.status).toBe(200);
    expect(search.body.results.length).toBeGreaterThan(0);
    expect(search.body.results.every((r: { serverId: string }) => r.serverId === internalId)).toBe(true);

    const client = await mcpClient(t, a.key);
    try {
      const viaMcp = await client.callTool({ name: 'call_tool', arguments: { serverId: internalId.toUpperCase(), toolName: 'list_servers', arguments: {} } });
      expect(viaMcp.isError).toBeUndefined();
      const infoViaMcp = structured(await client.callTool({ name: 'get_server_info', arguments: { serverId: internalId.toUpperCase() } }));
      expect(infoViaMcp.serverId).toBe(internalId);
    } finally {
      await client.close();
    }

    // What is not an id is refused in a body, and is no record in a path.
    const bad = await t.request('POST', '/api/v1/llm/mcp-call-tool', { key: a.key, body: { serverId: 'not-an-id', toolName: 'x' } });
    expectProblem(bad, 400);
    expect(bad.body.errors).toEqual([{ field: 'serverId', message: 'must be an id (a UUID)' }]);
    expectProblem(await t.request('GET', '/api/v1/servers/not-an-id', { key: a.key }), 404);
  });

  it('answers every documented GET of a server the same for its id in upper case as in lower case', async () => {
    const doc = (await t.request('GET', '/docs-json', { key: null })).body as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.keys(doc.paths).filter((p) => /^\/api\/v1\/servers\/\{id\}/.test(p) && doc.paths[p].get && (p.match(/\{/g) ?? []).length === 1);
    expect(paths.length).toBeGreaterThanOrEqual(3);
    for (const path of paths) {
      const lower = await t.request('GET', path.replace('{id}', serverId), { key: a.key });
      const upper = await t.request('GET', path.replace('{id}', serverId.toUpperCase()), { key: a.key });
      expect({ path, status: upper.status }).toEqual({ path, status: lower.status });
      expect(lower.status).toBeLessThan(500);
    }
  });

  it('says once that a disabled server is disabled', async () => {
    const res = await t.request('POST', '/api/v1/llm/mcp-call-tool', { key: a.key, body: { serverId, toolName: 'echo' } });
    expectProblem(res, 409);
    expect(res.body.detail).toContain('it is disabled;');
    expect(res.body.detail).not.toMatch(/disabled \(disabled\)/);
  });
});
