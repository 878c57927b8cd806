import { randomBytes } from 'node:crypto';
import { callWhoami, discoveryEnded, pastExpiry, useAuthorizedStand } from './oauth-stand';

const TTL_SECONDS = 3;

/**
 * The embedded database (PGlite) serves every connection in one session, so its row lock does not keep two
 * renewals apart: one process (API and worker together, as `npm start` runs them) still makes one refresh
 * request per token for every caller that needs it at once.
 */
describe('upstream OAuth: one refresh per token in one process (embedded database)', () => {
  const stand = useAuthorizedStand({ as: { accessTokenTtl: TTL_SECONDS }, app: { embedded: true, env: { CREDENTIALS_KEY: randomBytes(32).toString('base64') } } }, 120_000);
  const call = () => callWhoami(stand.app, stand.tenant.key, stand.id);

  it('makes exactly one refresh request when many calls and a discovery need a fresh token at once', async () => {
    expect((await call()).status).toBe(200);
    const before = (await stand.as.stats()).token.refresh_token ?? 0;
    await pastExpiry(stand.app, stand.tenant.key, stand.id, TTL_SECONDS);
    const [calls, discovery] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => call())),
      stand.app.request('POST', `/api/v1/servers/${stand.id}/discover`, { key: stand.tenant.key }),
    ]);
    expect(discovery.status).toBe(202);
    for (const res of calls) expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    const row = await discoveryEnded(stand.app, stand.id);
    expect(row.status).toBe('CONNECTED');
    const stats = await stand.as.stats();
    expect(stats.token.refresh_token).toBe(before + 1);
    expect(stats.tokenErrors.refresh_token ?? 0).toBe(0);
  });
});
