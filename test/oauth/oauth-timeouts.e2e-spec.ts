import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { freePort } from '../fixtures/net';
import { AuthorizationServer, authorizeAs, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, settled, waitFor } from '../support/servers';

const TTL_SECONDS = 3;
/** The bound on each request of the OAuth flow, short here so that the test does not wait ten seconds. */
const TIMEOUT_MS = 1500;

/**
 * An authorization server whose token endpoint takes the refresh request and never answers: the call fails
 * within the request bound with a reason that names the authorization server, the row lock is let go, and the
 * next refresh (once the authorization server answers again) goes through.
 */
describe('upstream OAuth: a hanging authorization server', () => {
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let app: TestApp;
  let tenant: { tenantId: string; key: string };
  let id: string;

  const call = () => app.request('POST', '/api/v1/llm/mcp-call-tool', { key: tenant.key, body: { serverId: id, toolName: 'whoami', arguments: {} } });
  const pastExpiry = async () => {
    const res = await app.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    const at = Date.parse(res.body.authorization.expiresAt);
    await waitFor('the access token to expire', async () => Date.now() > at + 50, (TTL_SECONDS + 2) * 1000, 100);
  };

  beforeAll(async () => {
    as = await startAuthorizationServer({ accessTokenTtl: TTL_SECONDS });
    mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: ['tools:read', 'tools:call'] });
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    app = await startTestApp({
      env: {
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        MCP_OUTBOUND_ALLOW: '127.0.0.1',
        DISCOVERY_ATTEMPTS: '1',
        OAUTH_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
        CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      },
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

  it('fails the call within the bound, names the authorization server, and lets the next refresh through', async () => {
    expect((await call()).status).toBe(200);
    const before = (await as.stats()).token.refresh_token ?? 0;
    await as.hangTokenEndpoint(true);
    await pastExpiry();
    const started = Date.now();
    const stuck = await call();
    const took = Date.now() - started;
    expect(stuck.status).toBeGreaterThanOrEqual(500);
    expect(stuck.text).toContain(`the authorization server ${as.issuer} could not be reached for a token refresh`);
    expect(stuck.text).toContain(`did not answer within ${TIMEOUT_MS / 1000} s`);
    // Well under a hang: the request bound, plus the call's own work.
    expect(took).toBeLessThan(TIMEOUT_MS + 5000);
    expect((await as.stats()).hung).toBe(1);

    // The row lock was let go with the failed refresh: the next one proceeds at once.
    await as.hangTokenEndpoint(false);
    const res = await call();
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect((await as.stats()).token.refresh_token).toBe(before + 1);
  });

  it('keeps one renewal per token in the process: callers that find one under way hold no database connection waiting on the row lock', async () => {
    await as.hangTokenEndpoint(true);
    await pastExpiry();
    const hungBefore = (await as.stats()).hung;
    const db = new Client({ connectionString: app.database.url });
    await db.connect();
    try {
      const calls = Promise.all(Array.from({ length: 4 }, () => call()));
      await waitFor('the refresh request to reach the token endpoint', async () => ((await as.stats()).hung > hungBefore ? true : undefined), 5000, 20);
      // Until the renewal gives up, no other caller waits in the database for its lock (sampled throughout).
      let settledAll = false;
      void calls.finally(() => (settledAll = true));
      let mostWaiting = 0;
      while (!settledAll) {
        const waiting = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
        mostWaiting = Math.max(mostWaiting, waiting.rows[0].n as number);
      }
      expect(mostWaiting).toBe(0);
      const results = await calls;
      for (const res of results) expect(res.text).toContain('could not be reached for a token refresh');
      expect((await as.stats()).hung).toBe(hungBefore + 1);
    } finally {
      await db.end();
      await as.hangTokenEndpoint(false);
    }
  });

  it('a discovery meeting the hanging token endpoint ends with the transient reason, not stuck', async () => {
    await as.hangTokenEndpoint(true);
    await pastExpiry();
    const res = await app.request('POST', `/api/v1/servers/${id}/discover`, { key: tenant.key });
    expect(res.status).toBe(202);
    const row = await waitFor('the discovery to end', async () => {
      const r = await settled(app, id);
      return r.statusReason === 'discovery queued' ? undefined : r;
    });
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toContain(`the authorization server ${as.issuer} could not be reached for a token refresh`);
    await as.hangTokenEndpoint(false);
    const view = await app.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    // Not a refusal: the authorization stays, and the next discovery refreshes.
    expect(view.body.authorization.status).toBe('authorized');
    await app.request('POST', `/api/v1/servers/${id}/discover`, { key: tenant.key });
    const back = await waitFor('CONNECTED again', async () => ((await settled(app, id)).status === 'CONNECTED' ? true : undefined));
    expect(back).toBe(true);
  });
});
