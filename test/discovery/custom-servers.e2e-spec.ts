import { sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp } from '../support/app';
import { useStand } from '../support/stand';
import { makeTenant, watchSecrets } from '../support/tenants';

/**
 * A tenant's CUSTOM server with credentials, discovered by the worker: the
 * decrypted bearer token and secret header reach that server, and nothing else
 * (no answer, no log line, no status reason) ever shows them.
 */
describe('a CUSTOM server discovered with its write-only credentials', () => {
  const seen: { authorization?: string; key?: string }[] = [];
  const s = useStand(async (keep) => {
    const t = keep(await startTestApp({ worker: true, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } }));
    const secrets = watchSecrets(t);
    const token = secrets.secret('custom-bearer');
    const header = secrets.secret('custom-header');
    const upstream = keep(
      await startRawServer({
        name: 'tenant-upstream',
        onHttp: (req, res) => {
          seen.push({ authorization: req.headers.authorization, key: req.headers['x-api-key'] as string | undefined });
          if (req.headers.authorization === `Bearer ${token}` && req.headers['x-api-key'] === header) return false;
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
          return true;
        },
        onToolsList: () => ({ result: { tools: [sampleTool('lookup'), sampleTool('update')] } }),
      }),
    );
    // Checked first after the tests: no secret in any answer or log line.
    keep(secrets, (w) => expect(w.leaks()).toEqual([]));
    return { t, secrets, token, header, upstream, a: await makeTenant(t) };
  });

  async function settled(id: string): Promise<Record<string, any>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await s.t.request('GET', `/api/v1/servers/${id}`, { key: s.a.key });
      if (res.body.status !== 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING' || Date.now() > deadline) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('reaches the server with its credentials and lists its tools', async () => {
    const created = await s.t.request('POST', '/api/v1/servers', {
      key: s.a.key,
      body: { name: 'upstream', transport: 'streamable-http', url: `${s.upstream.url}`, credentials: { bearerToken: s.token, headers: { 'X-Api-Key': s.header } } },
    });
    expect(created.status).toBe(201);
    const server = await settled(created.body.id);
    expect(server).toMatchObject({ status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', toolCount: 2 });
    const tools = await s.t.request('GET', `/api/v1/servers/${created.body.id}/tools`, { key: s.a.key });
    expect(tools.body.tools.map((x: { name: string }) => x.name)).toEqual(['lookup', 'update']);
    expect(seen.some((h) => h.authorization === `Bearer ${s.token}` && h.key === s.header)).toBe(true);
  });

  it('records a refusal without showing the credentials it tried', async () => {
    const wrong = s.secrets.secret('wrong-bearer');
    const created = await s.t.request('POST', '/api/v1/servers', {
      key: s.a.key,
      body: { name: 'refused', transport: 'streamable-http', url: `${s.upstream.url}`, credentials: { bearerToken: wrong } },
    });
    const server = await settled(created.body.id);
    expect(server.status).not.toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    await s.t.request('GET', `/api/v1/servers/${created.body.id}/discoveries`, { key: s.a.key });
    expect(JSON.stringify(server)).not.toContain(wrong);
  });
});
