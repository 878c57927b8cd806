import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, TenantKey, watchSecrets } from '../support/tenants';

/**
 * A tenant's CUSTOM server with credentials, discovered by the worker: the
 * decrypted bearer token and secret header reach that server, and nothing else
 * (no answer, no log line, no status reason) ever shows them.
 */
describe('a CUSTOM server discovered with its write-only credentials', () => {
  let t: TestApp;
  let a: TenantKey;
  let upstream: RawServer;
  let secrets: ReturnType<typeof watchSecrets>;
  let token: string;
  let header: string;
  const seen: { authorization?: string; key?: string }[] = [];

  beforeAll(async () => {
    t = await startTestApp({ worker: true, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    secrets = watchSecrets(t);
    token = secrets.secret('custom-bearer');
    header = secrets.secret('custom-header');
    upstream = await startRawServer({
      name: 'tenant-upstream',
      onHttp: (req, res) => {
        seen.push({ authorization: req.headers.authorization, key: req.headers['x-api-key'] as string | undefined });
        if (req.headers.authorization === `Bearer ${token}` && req.headers['x-api-key'] === header) return false;
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return true;
      },
      onToolsList: () => ({ result: { tools: [sampleTool('lookup'), sampleTool('update')] } }),
    });
    a = await makeTenant(t);
  });
  afterAll(async () => {
    expect(secrets.leaks()).toEqual([]);
    await t?.close();
    await upstream?.close();
  });

  async function settled(id: string): Promise<Record<string, any>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await t.request('GET', `/api/v1/servers/${id}`, { key: a.key });
      if (res.body.status !== 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING' || Date.now() > deadline) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('reaches the server with its credentials and lists its tools', async () => {
    const created = await t.request('POST', '/api/v1/servers', {
      key: a.key,
      body: { name: 'upstream', transport: 'streamable-http', url: `${upstream.url}`, credentials: { bearerToken: token, headers: { 'X-Api-Key': header } } },
    });
    expect(created.status).toBe(201);
    const server = await settled(created.body.id);
    expect(server).toMatchObject({ status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', toolCount: 2 });
    const tools = await t.request('GET', `/api/v1/servers/${created.body.id}/tools`, { key: a.key });
    expect(tools.body.tools.map((x: { name: string }) => x.name)).toEqual(['lookup', 'update']);
    expect(seen.some((s) => s.authorization === `Bearer ${token}` && s.key === header)).toBe(true);
  });

  it('records a refusal without showing the credentials it tried', async () => {
    const wrong = secrets.secret('wrong-bearer');
    const created = await t.request('POST', '/api/v1/servers', {
      key: a.key,
      body: { name: 'refused', transport: 'streamable-http', url: `${upstream.url}`, credentials: { bearerToken: wrong } },
    });
    const server = await settled(created.body.id);
    expect(server.status).not.toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    await t.request('GET', `/api/v1/servers/${created.body.id}/discoveries`, { key: a.key });
    expect(JSON.stringify(server)).not.toContain(wrong);
  });
});
