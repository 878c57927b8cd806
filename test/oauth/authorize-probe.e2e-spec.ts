import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { listenLoopback } from '../fixtures/net';
import { AuthorizationServer, consentAs, ProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { TestApp } from '../support/app';
import { OAuthStand, startBlockedAuthorizationServer, startOAuthStand } from './oauth-stand';

/**
 * Authorizing a server no discovery has reached yet (no worker runs here): the registry asks the server itself,
 * through the same detection (and outbound policy) as a discovery, and goes on to the authorization URL.
 */
describe('upstream OAuth: authorize before any discovery', () => {
  let stand: OAuthStand;
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
    stand = await startOAuthStand({ as: { accessTokenTtl: 300 }, app: { worker: false, env: { CREDENTIALS_KEY: randomBytes(32).toString('base64') } } });
    ({ as, mcp, app, publicUrl, tenant } = stand);
  }, 90_000);
  afterAll(async () => {
    await stand?.close();
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
    const blocked = await startBlockedAuthorizationServer(as.issuer);
    try {
      const id = await register('hostile', blocked.mcp.url);
      const res = await app.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/the outbound address policy refused it: 127\.0\.0\.2/);
      expect(blocked.connections()).toBe(0);
    } finally {
      await blocked.close();
    }
  });
});
