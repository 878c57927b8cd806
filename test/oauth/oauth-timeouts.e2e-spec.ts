import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { settled, waitFor } from '../support/servers';
import { callWhoami, discoverNow, pastExpiry as tokenExpired, useAuthorizedStand } from './oauth-stand';

const TTL_SECONDS = 3;
/** The bound on each request of the OAuth flow, short here so that the test does not wait ten seconds. */
const TIMEOUT_MS = 1500;

/**
 * An authorization server whose token endpoint takes the refresh request and never answers: the call fails
 * within the request bound with a reason that names the authorization server, the row lock is let go, and the
 * next refresh (once the authorization server answers again) goes through.
 */
describe('upstream OAuth: a hanging authorization server', () => {
  const stand = useAuthorizedStand(
    { as: { accessTokenTtl: TTL_SECONDS }, app: { env: { OAUTH_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), CREDENTIALS_KEY: randomBytes(32).toString('base64') } } },
    90_000,
  );
  const call = () => callWhoami(stand.app, stand.tenant.key, stand.id);
  const pastExpiry = () => tokenExpired(stand.app, stand.tenant.key, stand.id, TTL_SECONDS);

  it('fails the call within the bound, names the authorization server, and lets the next refresh through', async () => {
    expect((await call()).status).toBe(200);
    const before = (await stand.as.stats()).token.refresh_token ?? 0;
    await stand.as.hangTokenEndpoint(true);
    await pastExpiry();
    const started = Date.now();
    const stuck = await call();
    const took = Date.now() - started;
    expect(stuck.status).toBeGreaterThanOrEqual(500);
    expect(stuck.text).toContain(`the authorization server ${stand.as.issuer} could not be reached for a token refresh`);
    expect(stuck.text).toContain(`did not answer within ${TIMEOUT_MS / 1000} s`);
    // Well under a hang: the request bound, plus the call's own work.
    expect(took).toBeLessThan(TIMEOUT_MS + 5000);
    expect((await stand.as.stats()).hung).toBe(1);

    // The row lock was let go with the failed refresh: the next one proceeds at once.
    await stand.as.hangTokenEndpoint(false);
    const res = await call();
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    expect((await stand.as.stats()).token.refresh_token).toBe(before + 1);
  });

  it('keeps one renewal per token in the process: callers that find one under way hold no database connection waiting on the row lock', async () => {
    await stand.as.hangTokenEndpoint(true);
    await pastExpiry();
    const hungBefore = (await stand.as.stats()).hung;
    const db = new Client({ connectionString: stand.app.database.url });
    await db.connect();
    try {
      const calls = Promise.all(Array.from({ length: 4 }, () => call()));
      await waitFor('the refresh request to reach the token endpoint', async () => ((await stand.as.stats()).hung > hungBefore ? true : undefined), 5000, 20);
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
      expect((await stand.as.stats()).hung).toBe(hungBefore + 1);
    } finally {
      await db.end();
      await stand.as.hangTokenEndpoint(false);
    }
  });

  it('a discovery meeting the hanging token endpoint ends with the transient reason, not stuck', async () => {
    await stand.as.hangTokenEndpoint(true);
    await pastExpiry();
    const row = await discoverNow(stand.app, stand.tenant.key, stand.id);
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toContain(`the authorization server ${stand.as.issuer} could not be reached for a token refresh`);
    await stand.as.hangTokenEndpoint(false);
    const view = await stand.app.request('GET', `/api/v1/servers/${stand.id}`, { key: stand.tenant.key });
    // Not a refusal: the authorization stays, and the next discovery refreshes.
    expect(view.body.authorization.status).toBe('authorized');
    await stand.app.request('POST', `/api/v1/servers/${stand.id}/discover`, { key: stand.tenant.key });
    const back = await waitFor('CONNECTED again', async () => ((await settled(stand.app, stand.id)).status === 'CONNECTED' ? true : undefined));
    expect(back).toBe(true);
  });
});
