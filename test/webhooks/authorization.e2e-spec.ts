import { AuthorizationServer, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { freePort } from '../fixtures/net';
import { startWebhookReceiver, WebhookReceiver } from '../fixtures/webhook-receiver';
import { startTestApp, TestApp } from '../support/app';
import { waitFor } from '../support/servers';
import { makeTenant } from '../support/tenants';

/** A server that turns out to ask for OAuth (a real authorization server, oidc-provider): its owner hears of it. */
describe('webhooks: server.authorization_required', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let t: TestApp;
  let r: WebhookReceiver;

  beforeAll(async () => {
    as = await startAuthorizationServer({ resourceScopes: ['tools:read'] });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: ['tools:read'] });
    const port = await freePort();
    t = await startTestApp({ env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1' } });
    r = await startWebhookReceiver();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await r?.close();
    await mcp?.close();
    await as?.close();
  });

  it('is delivered, with the authorization server, when a discovery finds the server protected by OAuth', async () => {
    const tenant = await makeTenant(t);
    const hook = await t.request('POST', '/api/v1/webhooks', { key: tenant.key, body: { url: r.url, events: ['server.authorization_required', 'server.status_changed'] } });
    expect(hook.status).toBe(201);
    r.setSecret(hook.body.secret);
    const created = await t.request('POST', '/api/v1/servers', { key: tenant.key, body: { name: 'notes', transport: 'streamable-http', url: mcp.url } });
    expect(created.status).toBe(201);

    await waitFor('both deliveries', async () => r.verified().length >= 2, 60_000);
    const byType = Object.fromEntries(r.verified().map((d) => [d.payload.type, d.payload.data]));
    expect(byType['server.authorization_required']).toMatchObject({
      serverId: created.body.id,
      tenantId: tenant.tenantId,
      name: 'notes',
      authorization: { status: 'required', issuer: as.issuer, scopes: ['tools:read'] },
      reason: `authorization required: the server is protected by OAuth (authorization server ${as.issuer}); its owner authorizes it with POST /api/v1/servers/${created.body.id}/authorize`,
    });
    expect(byType['server.status_changed']).toMatchObject({ status: 'MCP_SERVER_CONNECTION_STATUS_ERROR', previousStatus: null });
    expect(r.rejected()).toEqual([]);
  }, 90_000);
});
