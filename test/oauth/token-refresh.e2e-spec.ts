import { randomBytes } from 'node:crypto';
import { freePort } from '../fixtures/net';
import { AuthorizationServer, authorizeAs, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp } from '../support/app';
import { hasPostgres } from '../support/database';
import { makeTenant, settled, waitFor } from '../support/servers';

/** Access tokens of a few seconds, so that every phase below runs through real refreshes. */
const TTL_SECONDS = 4;

/**
 * Keeping tokens fresh against a real authorization server with refresh token rotation: refreshed before they
 * expire (for discoveries and tool calls), once more after a 401 mid-call, one refresh for every caller on every
 * replica and worker at once, and a refused refresh ends ERROR with authorization `expired`, not retried.
 */
describe('upstream OAuth: fresh tokens', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let a: TestApp;
  let b: TestApp | undefined;
  let publicUrl: string;
  let tenant: { tenantId: string; key: string };
  let id: string;

  const call = async (app: TestApp, key: string) => {
    const res = await app.request('POST', '/api/v1/llm/mcp-call-tool', { key, body: { serverId: id, toolName: 'whoami', arguments: {} } });
    return res;
  };
  const expiresAt = async () => {
    const res = await a.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    return Date.parse(res.body.authorization.expiresAt);
  };
  /** Waits until the token held has expired (its lifetime is the only clock here). */
  const pastExpiry = async () => {
    const at = await expiresAt();
    await waitFor('the access token to expire', async () => Date.now() > at + 50, (TTL_SECONDS + 2) * 1000, 100);
  };
  const discover = async () => {
    const res = await a.request('POST', `/api/v1/servers/${id}/discover`, { key: tenant.key });
    expect(res.status).toBe(202);
    return waitFor('the discovery to end', async () => {
      const row = await settled(a, id);
      return row.statusReason === 'discovery queued' ? undefined : row;
    });
  };

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtl: TTL_SECONDS });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: ['tools:read', 'tools:call'] });
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    const shared = { PUBLIC_URL: publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', CREDENTIALS_KEY: randomBytes(32).toString('base64') };
    a = await startTestApp({ env: { ...shared, PORT: String(port) } });
    // A second API replica on the same database and queue, no worker of its own.
    if (hasPostgres()) b = await startTestApp({ worker: false, database: a.database, queuePrefix: a.queuePrefix, env: shared });
    tenant = await makeTenant(a);
    const created = await a.request('POST', '/api/v1/servers', { key: tenant.key, body: { name: 'notes', transport: 'streamable-http', url: mcp.url } });
    id = created.body.id;
    await settled(a, id);
    const page = await authorizeAs(a, publicUrl, tenant.key, id);
    expect(page.status).toBe(200);
    const row = await waitFor('CONNECTED', async () => {
      const r = await settled(a, id);
      return r.status === 'CONNECTED' ? r : undefined;
    });
    expect(row.status).toBe('CONNECTED');
  }, 90_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await mcp?.close();
    await as?.close();
  });

  it('refreshes an expired token before a tool call and before a discovery', async () => {
    expect((await call(a, tenant.key)).status).toBe(200);
    const before = (await as.stats()).token.refresh_token ?? 0;
    await pastExpiry();
    const res = await call(a, tenant.key);
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect((await as.stats()).token.refresh_token).toBe(before + 1);

    await pastExpiry();
    const row = await discover();
    expect([row.status, row.statusReason]).toEqual(['CONNECTED', null]);
    expect((await as.stats()).token.refresh_token).toBe(before + 2);
    const view = await a.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    expect(view.body.authorization.status).toBe('authorized');
  });

  it('refreshes once more after a 401 in the middle of a call, and the call succeeds', async () => {
    // A token just obtained, far from its refresh margin, on an open session.
    await pastExpiry();
    expect((await call(a, tenant.key)).status).toBe(200);
    const before = (await as.stats()).token.refresh_token ?? 0;
    const refusedBefore = mcp.refused;
    // The server stops accepting every token issued so far (its keys rotated): the held one is refused before its
    // expiry. Tokens say when they were issued in whole seconds: the cut is on the next second.
    const cut = Math.ceil((Date.now() + 1) / 1000) * 1000;
    mcp.rejectIssuedBefore = cut;
    await waitFor('the next second', async () => Date.now() >= cut, 3000, 20);
    const res = await call(a, tenant.key);
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect((await as.stats()).token.refresh_token).toBe(before + 1);
    expect(mcp.refused).toBe(refusedBefore + 1);
    mcp.rejectIssuedBefore = undefined;
  });

  it('makes exactly one refresh request when two replicas and a worker need a fresh token at once', async () => {
    // Sessions open on both replicas with the current token.
    expect((await call(a, tenant.key)).status).toBe(200);
    if (b) expect((await call(b, tenant.key)).status).toBe(200);
    const before = (await as.stats()).token.refresh_token ?? 0;
    await pastExpiry();
    const replicas = b ? [a, b] : [a];
    const [calls, discovered] = await Promise.all([
      Promise.all(replicas.flatMap((app) => Array.from({ length: 4 }, () => call(app, tenant.key)))),
      discover(),
    ]);
    for (const res of calls) expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect(discovered.status).toBe('CONNECTED');
    expect((await as.stats()).token.refresh_token).toBe(before + 1);
    expect((await as.stats()).tokenErrors.refresh_token ?? 0).toBe(0);
  });

  it('ends ERROR with authorization expired when the refresh is refused, and does not try again', async () => {
    expect(await as.revokeRefreshTokens()).toBeGreaterThan(0);
    await pastExpiry();
    const row = await discover();
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/^authorization expired: the authorization server refused to refresh the token \(invalid_grant.*\); authorize again with POST \/api\/v1\/servers\/.+\/authorize$/);
    const view = await a.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    expect(view.body.authorization).toMatchObject({ status: 'expired', issuer: as.issuer });
    expect(view.body.authorization.expiresAt).toBeUndefined();
    expect((await as.stats()).tokenErrors.refresh_token).toBe(1);

    // The next discovery and a call do not ask the authorization server again.
    const again = await discover();
    expect(again.status).toBe('ERROR');
    expect(again.statusReason).toMatch(/^authorization expired/);
    const res = await call(a, tenant.key);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect((await as.stats()).tokenErrors.refresh_token).toBe(1);

    // Authorizing again brings it back.
    expect((await authorizeAs(a, publicUrl, tenant.key, id)).status).toBe(200);
    const back = await waitFor('CONNECTED again', async () => {
      const r = await settled(a, id);
      return r.status === 'CONNECTED' ? r : undefined;
    });
    expect(back.status).toBe('CONNECTED');
  });
});
