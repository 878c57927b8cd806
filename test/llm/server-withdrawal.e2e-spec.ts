import { expectProblem, makeTenant, TenantKey } from '../support/tenants';
import { startTestApp, TestApp } from '../support/app';
import { CallFixture, startCallFixture } from './call-fixtures';
import { eventually, registerAndDiscover } from './helpers';

/**
 * A server disabled or deleted through a replica is neither called nor found by search on that replica from
 * the moment the change is answered: its catalog entry, search slots and pooled sessions go before the answer
 * (other replicas follow through the change feed).
 */
describe('a disabled or deleted server, on the replica that changed it', () => {
  let t: TestApp;
  let fixture: CallFixture;
  let a: TenantKey;

  beforeAll(async () => {
    fixture = await startCallFixture();
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    a = await makeTenant(t);
  });

  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  const call = (serverId: string) =>
    t.request('POST', '/api/v1/llm/mcp-call-tool', { key: a.key, body: { serverId, toolName: 'echo', arguments: { message: 'still there?' } } });
  const search = async (serverId: string): Promise<number> => {
    const res = await t.request('POST', '/api/v1/llm/mcp-search-tools', { key: a.key, body: { query: 'echo the message back', serverIds: [serverId] } });
    expect(res.status).toBe(200);
    return (res.body.results as unknown[]).length;
  };

  /** A connected server whose echo has been called once (a pooled session) and found by search. */
  async function liveServer(name: string): Promise<string> {
    const server = await registerAndDiscover(t, { name, transport: 'streamable-http', url: fixture.url }, a.key);
    expect(server.status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    await eventually('the tools searchable', async () => (await search(server.id)) > 0);
    const first = await call(server.id);
    expect(first.status).toBe(200);
    return server.id;
  }

  it('refuses calls and hides its tools right after PATCH enabled=false answers, and serves them again once re-enabled', async () => {
    const id = await liveServer('to-disable');
    const opened = fixture.sessionsOpened();

    const patched = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { enabled: false } });
    expect(patched.status).toBe(200);
    const [refused, found] = await Promise.all([call(id), search(id)]);
    expectProblem(refused, 409);
    expect(refused.body.detail).toContain('it is disabled');
    expect(found).toBe(0);
    // Nothing reached the server: the pooled session was not used.
    expect(fixture.sessionsOpened()).toBe(opened);

    const enabled = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { enabled: true } });
    expect(enabled.status).toBe(200);
    await eventually('connected again', async () => (await t.request('GET', `/api/v1/servers/${id}`, { key: a.key })).body.status === 'MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    const again = await call(id);
    expect(again.status).toBe(200);
  });

  it('refuses calls (404) and hides its tools right after DELETE answers', async () => {
    const id = await liveServer('to-delete');
    const deleted = await t.request('DELETE', `/api/v1/servers/${id}`, { key: a.key });
    expect(deleted.status).toBe(204);
    const [refused, found] = await Promise.all([call(id), search(id)]);
    expectProblem(refused, 404);
    expect(found).toBe(0);
  });

  it('does the same through the registry’s own MCP tools at once', async () => {
    const id = await liveServer('to-disable-mcp');
    const patched = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { enabled: false } });
    expect(patched.status).toBe(200);
    const res = await fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_tools', arguments: { query: 'echo the message back', serverIds: [id] } },
      }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('"result"');
    expect(text).not.toContain(id);
  });
});
