import { randomBytes } from 'node:crypto';
import { freePort } from '../fixtures/net';
import { AuthorizationServer, authorizeAs, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, settled, waitFor } from '../support/servers';

const TTL_SECONDS = 3;

/**
 * The embedded database (PGlite) serves every connection in one session, so its row lock does not keep two
 * renewals apart: one process (API and worker together, as `npm start` runs them) still makes one refresh
 * request per token for every caller that needs it at once.
 */
describe('upstream OAuth: one refresh per token in one process (embedded database)', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let app: TestApp;
  let tenant: { tenantId: string; key: string };
  let id: string;

  const call = () => app.request('POST', '/api/v1/llm/mcp-call-tool', { key: tenant.key, body: { serverId: id, toolName: 'whoami', arguments: {} } });

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtl: TTL_SECONDS });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: ['tools:read', 'tools:call'] });
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    app = await startTestApp({
      embedded: true,
      env: { PORT: String(port), PUBLIC_URL: publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', CREDENTIALS_KEY: randomBytes(32).toString('base64') },
    });
    tenant = await makeTenant(app);
    const created = await app.request('POST', '/api/v1/servers', { key: tenant.key, body: { name: 'notes', transport: 'streamable-http', url: mcp.url } });
    id = created.body.id;
    await settled(app, id);
    expect((await authorizeAs(app, publicUrl, tenant.key, id)).status).toBe(200);
    await waitFor('CONNECTED', async () => ((await settled(app, id)).status === 'CONNECTED' ? true : undefined));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await mcp?.close();
    await as?.close();
  });

  it('makes exactly one refresh request when many calls and a discovery need a fresh token at once', async () => {
    expect((await call()).status).toBe(200);
    const before = (await as.stats()).token.refresh_token ?? 0;
    const view = await app.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    const at = Date.parse(view.body.authorization.expiresAt);
    await waitFor('the access token to expire', async () => Date.now() > at + 50, (TTL_SECONDS + 2) * 1000, 100);
    const [calls, discovery] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => call())),
      app.request('POST', `/api/v1/servers/${id}/discover`, { key: tenant.key }),
    ]);
    expect(discovery.status).toBe(202);
    for (const res of calls) expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    const row = await waitFor('the discovery to end', async () => {
      const r = await settled(app, id);
      return r.statusReason === 'discovery queued' ? undefined : r;
    });
    expect(row.status).toBe('CONNECTED');
    const stats = await as.stats();
    expect(stats.token.refresh_token).toBe(before + 1);
    expect(stats.tokenErrors.refresh_token ?? 0).toBe(0);
  });
});
