import { randomBytes } from 'node:crypto';
import { authorizeAs } from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp } from '../support/app';
import { hasPostgres } from '../support/database';
import { settled, waitFor } from '../support/servers';
import { useStand } from '../support/stand';
import { callWhoami, discoverNow, pastExpiry as tokenExpired, registerAuthorized, startOAuthStand } from './oauth-stand';

/** Access tokens of a few seconds, so that every phase below runs through real refreshes. */
const TTL_SECONDS = 4;

/**
 * Keeping tokens fresh against a real authorization server with refresh token rotation: refreshed before they
 * expire (for discoveries and tool calls), once more after a 401 mid-call, one refresh for every caller on every
 * replica and worker at once, and a refused refresh ends ERROR with authorization `expired`, not retried.
 */
describe('upstream OAuth: fresh tokens', () => {
  const credentialsKey = randomBytes(32).toString('base64');
  const stand = useStand(async (keep) => {
    const oauth = keep(await startOAuthStand({ as: { accessTokenTtl: TTL_SECONDS }, app: { env: { CREDENTIALS_KEY: credentialsKey } } }));
    const a = oauth.app;
    // A second API replica on the same database and queue, no worker of its own.
    const env = { PUBLIC_URL: oauth.publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', CREDENTIALS_KEY: credentialsKey };
    const b = hasPostgres() ? keep(await startTestApp({ worker: false, database: a.database, queuePrefix: a.queuePrefix, env })) : undefined;
    return { ...oauth, a, b, id: await registerAuthorized(oauth) };
  }, 90_000);
  const call = (app: TestApp, key: string) => callWhoami(app, key, stand.id);
  const pastExpiry = () => tokenExpired(stand.a, stand.tenant.key, stand.id, TTL_SECONDS);
  const discover = () => discoverNow(stand.a, stand.tenant.key, stand.id);

  it('refreshes an expired token before a tool call and before a discovery', async () => {
    expect((await call(stand.a, stand.tenant.key)).status).toBe(200);
    const before = (await stand.as.stats()).token.refresh_token ?? 0;
    await pastExpiry();
    const res = await call(stand.a, stand.tenant.key);
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect((await stand.as.stats()).token.refresh_token).toBe(before + 1);

    await pastExpiry();
    const row = await discover();
    expect([row.status, row.statusReason]).toEqual(['CONNECTED', null]);
    expect((await stand.as.stats()).token.refresh_token).toBe(before + 2);
    const view = await stand.a.request('GET', `/api/v1/servers/${stand.id}`, { key: stand.tenant.key });
    expect(view.body.authorization.status).toBe('authorized');
  });

  it('refreshes once more after a 401 in the middle of a call, and the call succeeds', async () => {
    // A token just obtained, far from its refresh margin, on an open session.
    await pastExpiry();
    expect((await call(stand.a, stand.tenant.key)).status).toBe(200);
    const before = (await stand.as.stats()).token.refresh_token ?? 0;
    const refusedBefore = stand.mcp.refused;
    // The server stops accepting every token issued so far (its keys rotated): the held one is refused before its
    // expiry. Tokens say when they were issued in whole seconds: the cut is on the next second.
    const cut = Math.ceil((Date.now() + 1) / 1000) * 1000;
    stand.mcp.rejectIssuedBefore = cut;
    await waitFor('the next second', async () => Date.now() >= cut, 3000, 20);
    const res = await call(stand.a, stand.tenant.key);
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect((await stand.as.stats()).token.refresh_token).toBe(before + 1);
    expect(stand.mcp.refused).toBe(refusedBefore + 1);
    stand.mcp.rejectIssuedBefore = undefined;
  });

  it('makes exactly one refresh request when two replicas and a worker need a fresh token at once', async () => {
    // Sessions open on both replicas with the current token.
    expect((await call(stand.a, stand.tenant.key)).status).toBe(200);
    if (stand.b) expect((await call(stand.b, stand.tenant.key)).status).toBe(200);
    const before = (await stand.as.stats()).token.refresh_token ?? 0;
    await pastExpiry();
    const replicas = stand.b ? [stand.a, stand.b] : [stand.a];
    const [calls, discovered] = await Promise.all([
      Promise.all(replicas.flatMap((app) => Array.from({ length: 4 }, () => call(app, stand.tenant.key)))),
      discover(),
    ]);
    for (const res of calls) expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect(discovered.status).toBe('CONNECTED');
    expect((await stand.as.stats()).token.refresh_token).toBe(before + 1);
    expect((await stand.as.stats()).tokenErrors.refresh_token ?? 0).toBe(0);
  });

  it('ends ERROR with authorization expired when the refresh is refused, and does not try again', async () => {
    expect(await stand.as.revokeRefreshTokens()).toBeGreaterThan(0);
    await pastExpiry();
    const row = await discover();
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/^authorization expired: the authorization server refused to refresh the token \(invalid_grant.*\); authorize again with POST \/api\/v1\/servers\/.+\/authorize$/);
    const view = await stand.a.request('GET', `/api/v1/servers/${stand.id}`, { key: stand.tenant.key });
    expect(view.body.authorization).toMatchObject({ status: 'expired', issuer: stand.as.issuer });
    expect(view.body.authorization.expiresAt).toBeUndefined();
    expect((await stand.as.stats()).tokenErrors.refresh_token).toBe(1);

    // The next discovery and a call do not ask the authorization server again.
    const again = await discover();
    expect(again.status).toBe('ERROR');
    expect(again.statusReason).toMatch(/^authorization expired/);
    const res = await call(stand.a, stand.tenant.key);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect((await stand.as.stats()).tokenErrors.refresh_token).toBe(1);

    // Authorizing again brings it back.
    expect((await authorizeAs(stand.a, stand.publicUrl, stand.tenant.key, stand.id)).status).toBe(200);
    const back = await waitFor('CONNECTED again', async () => {
      const r = await settled(stand.a, stand.id);
      return r.status === 'CONNECTED' ? r : undefined;
    });
    expect(back.status).toBe('CONNECTED');
  });
});
