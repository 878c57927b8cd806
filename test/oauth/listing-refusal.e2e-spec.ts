import { randomBytes } from 'node:crypto';
import { freePort } from '../fixtures/net';
import { AuthorizationServer, authorizeAs, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, settled, waitFor } from '../support/servers';

/**
 * A server that accepts the token for initialize and refuses it for tools/list (its keys rotated between the two):
 * the discovery gets the same OAuth handling as at connect (one refresh, the session made again), and a refresh
 * the authorization server refuses ends in authorization expired.
 */
describe('upstream OAuth: a 401 while listing tools', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let app: TestApp;
  let publicUrl: string;
  let tenant: { tenantId: string; key: string };
  let id: string;

  const discover = async () => {
    const res = await app.request('POST', `/api/v1/servers/${id}/discover`, { key: tenant.key });
    expect(res.status).toBe(202);
    return waitFor('the discovery to end', async () => {
      const r = await settled(app, id);
      return r.statusReason === 'discovery queued' ? undefined : r;
    });
  };

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtl: 300 });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: ['tools:read', 'tools:call'] });
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    app = await startTestApp({
      env: { PORT: String(port), PUBLIC_URL: publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', CREDENTIALS_KEY: randomBytes(32).toString('base64') },
    });
    tenant = await makeTenant(app);
    const created = await app.request('POST', '/api/v1/servers', { key: tenant.key, body: { name: 'notes', transport: 'streamable-http', url: mcp.url } });
    id = created.body.id;
    await settled(app, id);
    expect((await authorizeAs(app, publicUrl, tenant.key, id)).status).toBe(200);
    await waitFor('CONNECTED', async () => ((await settled(app, id)).status === 'CONNECTED' ? true : undefined));
  }, 90_000);
  afterAll(async () => {
    await app?.close();
    await mcp?.close();
    await as?.close();
  });

  it('refreshes the token once and lists the tools on a new session', async () => {
    const before = (await as.stats()).token.refresh_token ?? 0;
    mcp.refuseListing = 1;
    const row = await discover();
    expect([row.status, row.statusReason]).toEqual(['CONNECTED', null]);
    expect(mcp.refuseListing).toBe(0);
    expect((await as.stats()).token.refresh_token).toBe(before + 1);
    const tools = await app.request('GET', `/api/v1/servers/${id}/tools`, { key: tenant.key });
    expect(tools.text).toContain('whoami');
  });

  it('ends in authorization expired when the refresh after the listing refusal is refused', async () => {
    expect(await as.revokeRefreshTokens()).toBeGreaterThan(0);
    mcp.refuseListing = 1;
    const row = await discover();
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/^authorization expired: the authorization server refused to refresh the token \(invalid_grant/);
    const view = await app.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    expect(view.body.authorization.status).toBe('expired');
  });
});
