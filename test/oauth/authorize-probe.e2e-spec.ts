import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { createServer as createTcpServer, Socket } from 'node:net';
import { freePort, listenLoopback } from '../fixtures/net';
import { AuthorizationServer, consentAs, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant } from '../support/servers';

/**
 * Authorizing a server no discovery has reached yet (no worker runs here): the registry asks the server itself,
 * through the same detection (and outbound policy) as a discovery, and goes on to the authorization URL.
 */
describe('upstream OAuth: authorize before any discovery', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let app: TestApp;
  let publicUrl: string;
  let tenant: { tenantId: string; key: string };

  const register = async (name: string, url: string) => {
    const res = await app.request('POST', '/api/v1/servers', { key: tenant.key, body: { name, transport: 'streamable-http', url } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtl: 300 });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: ['tools:read', 'tools:call'] });
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    app = await startTestApp({
      worker: false,
      env: { PORT: String(port), PUBLIC_URL: publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', CREDENTIALS_KEY: randomBytes(32).toString('base64') },
    });
    tenant = await makeTenant(app);
  }, 90_000);
  afterAll(async () => {
    await app?.close();
    await mcp?.close();
    await as?.close();
  });

  it('probes the server, finds its authorization server and completes the authorization', async () => {
    const id = await register('notes', mcp.url);
    const before = await app.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    expect(before.body.authorization?.status ?? 'none').toBe('none');
    const refusedBefore = mcp.refused;
    const started = await app.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
    expect([started.status, started.text]).toEqual([200, expect.stringContaining('authorizationUrl')]);
    expect(mcp.refused).toBe(refusedBefore + 1);
    const url = new URL(started.body.authorizationUrl);
    expect(url.origin + url.pathname).toBe(`${as.issuer}/auth`);
    expect(url.searchParams.get('resource')).toBe(mcp.resource);
    expect(url.searchParams.get('scope')).toContain('tools:read');
    const page = await consentAs(started.body.authorizationUrl, 'alice', { callbackPrefix: `${publicUrl}/oauth/callback` });
    expect(page.status).toBe(200);
    const view = await app.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    expect(view.body.authorization).toMatchObject({ status: 'authorized', issuer: as.issuer });
  });

  it('answers 409 with the reason for a server that does not ask for OAuth', async () => {
    const open: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":0,"result":{}}'));
    const listening = await listenLoopback(open);
    try {
      const id = await register('open', `http://127.0.0.1:${listening.port}/mcp`);
      const res = await app.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
      expect(res.status).toBe(409);
      expect(res.body.detail).toBe('the server does not ask for authorization: it answered 200 without a token, not 401 with a Bearer challenge');
    } finally {
      await listening.close();
    }
  });

  it('refuses an authorization server on a blocked address before any request reaches it', async () => {
    let connections = 0;
    const trap = createTcpServer((s: Socket) => {
      connections++;
      s.destroy();
    });
    const port = await freePort();
    await new Promise<void>((resolve) => trap.listen(port, '127.0.0.2', resolve));
    const hostile = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, authorizationServer: `https://127.0.0.2:${port}` });
    try {
      const id = await register('hostile', hostile.url);
      const res = await app.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/the outbound address policy refused it: 127\.0\.0\.2/);
      expect(connections).toBe(0);
    } finally {
      await hostile.close();
      await new Promise<void>((resolve) => trap.close(() => resolve()));
    }
  });
});
