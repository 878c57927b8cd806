import { createRegistryMcpServer, registryVersion } from '@app/mcp-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { request as httpRequest } from 'node:http';
import { inspector as inspectorCli, inspectorCall } from '../support/mcp-clients';
import { expectProblem, makeTenant } from '../support/tenants';
import { startTestApp, TestApp } from '../support/app';
import { useStand } from '../support/stand';
import { startCallFixture } from './call-fixtures';
import { eventually, mcpClient, registerAndDiscover, structured } from './helpers';

/** `@modelcontextprotocol/inspector-cli` against the registry's /mcp. */
const inspector = (t: TestApp, key: string, args: string[]) => inspectorCli(`${t.baseUrl}/mcp`, key, args);

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('the MCP endpoint /mcp', () => {
  const s = useStand(async (keep) => {
    const fixture = keep(await startCallFixture());
    const t = keep(await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', CORS_ORIGINS: 'https://app.example.com' } }));
    const a = await makeTenant(t);
    const serverId = (await registerAndDiscover(t, { name: 'echoes', transport: 'streamable-http', url: fixture.url }, a.key)).id;
    const client = keep(await mcpClient(t, a.key));
    return { t, a, serverId, client };
  });

  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(`${s.t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  async function problem(res: Response, status: number): Promise<any> {
    const body = await res.json();
    expectProblem({ status: res.status, headers: res.headers, body }, status);
    return body;
  }

  it('lists exactly what its server defines (the list is made once and kept), to every caller', async () => {
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createRegistryMcpServer(undefined, undefined, registryVersion()).connect(b);
    await direct.connect(a);
    const expected = await direct.listTools();
    await direct.close();
    expect(await s.client.listTools()).toEqual(expected);
    expect(await s.client.listTools()).toEqual(expected);
  });

  it('lists its four tools to a plain SDK client, and answers each with a tenant key', async () => {
    expect(s.client.getServerVersion()).toMatchObject({ name: 'mcp-registry' });
    const { tools } = await s.client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['call_tool', 'get_server_info', 'list_servers', 'search_tools']);

    // Discovered a moment ago: searchable within the catalog's polling interval.
    const found = await eventually('the new tools to be searchable', async () => {
      const r = structured(await s.client.callTool({ name: 'search_tools', arguments: { query: 'echo the message back' } }));
      // Until then the registry's own tools may match a word of the query ("back"): wait for the new server's.
      return r.results.some((x: { serverId: string }) => x.serverId === s.serverId) ? r : undefined;
    }, 5000);
    expect(found.results[0]).toMatchObject({ serverId: s.serverId, serverName: 'echoes', tool: { name: 'echo', description: 'Echo the message back' } });

    const info = structured(await s.client.callTool({ name: 'get_server_info', arguments: { serverId: s.serverId } }));
    expect(info).toMatchObject({ serverId: s.serverId, name: 'echoes', status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', kind: 'MCP_SERVER_KIND_CUSTOM' });

    const list = structured(await s.client.callTool({ name: 'list_servers', arguments: { kind: 'MCP_SERVER_KIND_CUSTOM' } }));
    expect(list.servers.map((s: { name: string }) => s.name)).toEqual(['echoes']);

    const called = await s.client.callTool({ name: 'call_tool', arguments: { serverId: s.serverId, toolName: 'echo', arguments: { message: 'hi' } } });
    expect(called).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }], structuredContent: { echoed: 'hi' } });
  });

  it('answers invalid input and refusals as isError results the model can read', async () => {
    const badId = await s.client.callTool({ name: 'get_server_info', arguments: { serverId: 'not-an-id' } });
    expect(badId.isError).toBe(true);
    const missing = await s.client.callTool({ name: 'get_server_info', arguments: { serverId: '00000000-0000-4000-8000-000000000000' } });
    expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Not found: server 00000000-0000-4000-8000-000000000000 not found' }] });
  });

  it('works for @modelcontextprotocol/inspector-cli in CLI mode: lists the tools and calls each one', async () => {
    const listed = await inspector(s.t, s.a.key, ['--method', 'tools/list']);
    expect(listed.tools.map((x: { name: string }) => x.name).sort()).toEqual(['call_tool', 'get_server_info', 'list_servers', 'search_tools']);

    const search = await inspector(s.t, s.a.key, ['--method', 'tools/call', '--tool-name', 'search_tools', '--tool-arg', 'query=echo a message', '--tool-arg', 'limit=3']);
    expect(search.isError).toBeFalsy();
    expect(search.structuredContent.results[0].tool.name).toBe('echo');

    const info = await inspector(s.t, s.a.key, ['--method', 'tools/call', '--tool-name', 'get_server_info', '--tool-arg', `serverId=${s.serverId}`]);
    expect(info.structuredContent).toMatchObject({ serverId: s.serverId, name: 'echoes' });

    const list = await inspector(s.t, s.a.key, ['--method', 'tools/call', '--tool-name', 'list_servers', '--tool-arg', 'pageSize=10']);
    expect(list.structuredContent.servers.map((s: { name: string }) => s.name)).toContain('echoes');

    const called = await inspectorCall(`${s.t.baseUrl}/mcp`, s.a.key, 'call_tool', { serverId: s.serverId, toolName: 'echo', arguments: { message: 'from the inspector' } });
    expect(called.content).toEqual([{ type: 'text', text: 'Echo: from the inspector' }]);
  });

  it('answers 401 with a problem and WWW-Authenticate without a key or with a bad one', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer mcpr_not-a-key-at-all-000000000000000000' }, { authorization: 'Basic abc' }]) {
      const res = await post(headers);
      await problem(res, 401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    await expect(mcpClient(s.t, null)).rejects.toThrow(/401/);
  });

  it('answers 403 to a page of a foreign origin, and accepts its own origin and CORS_ORIGINS', async () => {
    const foreign = await post({ authorization: `Bearer ${s.a.key}`, origin: 'https://evil.example' });
    const body = await problem(foreign, 403);
    expect(body.detail).toContain('https://evil.example');
    await expect(mcpClient(s.t, s.a.key, { origin: 'https://evil.example' })).rejects.toThrow(/403/);

    for (const origin of [s.t.baseUrl, 'https://app.example.com']) {
      const ok = await post({ authorization: `Bearer ${s.a.key}`, origin });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('mcp-registry');
    }
  });

  it('answers 403 to a Host header that does not name this registry (DNS rebinding)', async () => {
    const port = new URL(s.t.baseUrl).port;
    const withHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: { host, authorization: `Bearer ${s.a.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(initialize));
      });
    expect(await withHost(`rebound.evil.example:${port}`)).toBe(403);
    expect(await withHost(`localhost:${port}`)).toBe(200);
  });

  it('speaks the Streamable HTTP rules for a POST: Accept, Content-Type, JSON-RPC, batches, notifications', async () => {
    const auth = { authorization: `Bearer ${s.a.key}` };
    const raw = (headers: Record<string, string>, body: string) => fetch(`${s.t.baseUrl}/mcp`, { method: 'POST', headers: { ...auth, ...headers }, body });
    const both = 'application/json, text/event-stream';

    const notAcceptable = await raw({ 'content-type': 'application/json', accept: 'application/json' }, JSON.stringify(initialize));
    expect(notAcceptable.status).toBe(406);
    expect(((await notAcceptable.json()) as { error: { code: number } }).error.code).toBe(-32000);
    expect((await raw({ 'content-type': 'text/plain', accept: both }, JSON.stringify(initialize))).status).toBe(415);
    expect((await raw({ 'content-type': 'application/json', accept: both }, JSON.stringify({ hello: 'world' }))).status).toBe(400);
    const twoInits = await raw({ 'content-type': 'application/json', accept: both }, JSON.stringify([initialize, { ...initialize, id: 2 }]));
    expect(twoInits.status).toBe(400);
    const badVersion = await raw(
      { 'content-type': 'application/json', accept: both, 'mcp-protocol-version': '1999-01-01' },
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    );
    expect(badVersion.status).toBe(400);

    const notification = await raw({ 'content-type': 'application/json', accept: both }, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(notification.status).toBe(202);
    expect(await notification.text()).toBe('');

    const batch = await raw(
      { 'content-type': 'application/json', accept: both },
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'get_server_info', arguments: { serverId: s.serverId } } },
      ]),
    );
    expect(batch.status).toBe(200);
    const answers = (await batch.json()) as { id: string; result: { tools?: unknown[]; structuredContent?: { name: string } } }[];
    expect(answers.map((x) => x.id)).toEqual(['a', 'b']);
    expect(answers[0].result.tools).toHaveLength(4);
    expect(answers[1].result.structuredContent?.name).toBe('echoes');
  });

  it('answers DELETE with 405 (no session to end), and GET with the change stream of the 2025 era (405 for 2026-07-28)', async () => {
    const del = await fetch(`${s.t.baseUrl}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${s.a.key}`, accept: 'text/event-stream' } });
    await problem(del, 405);
    expect(del.headers.get('allow')).toBe('GET, POST');
    const modern = await fetch(`${s.t.baseUrl}/mcp`, { method: 'GET', headers: { authorization: `Bearer ${s.a.key}`, accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' } });
    await problem(modern, 405);
    expect(modern.headers.get('allow')).toBe('POST');
    const abort = new AbortController();
    const stream = await fetch(`${s.t.baseUrl}/mcp`, { method: 'GET', headers: { authorization: `Bearer ${s.a.key}`, accept: 'text/event-stream' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    abort.abort();
  });

  it('is documented in /docs', async () => {
    const doc = (await s.t.request('GET', '/docs-json', { key: null })).body;
    const op = doc.paths['/mcp'].post;
    expect(op.summary).toContain('search_tools');
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    for (const [path, ok] of [
      ['/api/v1/llm/mcp-search-tools', ['200', '400', '401']],
      ['/api/v1/llm/mcp-call-tool', ['200', '400', '401', '404', '409', '429', '502', '504']],
    ] as const) {
      const rpc = doc.paths[path].post;
      expect(rpc.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(rpc.responses)).toEqual(expect.arrayContaining([...ok]));
      for (const [status, response] of Object.entries(rpc.responses) as [string, { content?: Record<string, unknown> }][]) {
        if (Number(status) >= 400) expect(Object.keys(response.content ?? {})).toEqual(['application/problem+json']);
      }
    }
    const props = doc.components.schemas.SearchToolsRequestDto.properties;
    for (const field of ['query', 'limit', 'kinds', 'serverIds']) expect(props[field].description).toEqual(expect.any(String));
  });
});
