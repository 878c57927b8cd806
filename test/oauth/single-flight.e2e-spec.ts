import { randomBytes } from 'node:crypto';
import { TestApp } from '../support/app';
import { discoveryEnded, OAuthStand, pastExpiry, registerAuthorized, startOAuthStand } from './oauth-stand';

const TTL_SECONDS = 3;

/**
 * The embedded database (PGlite) serves every connection in one session, so its row lock does not keep two
 * renewals apart: one process (API and worker together, as `npm start` runs them) still makes one refresh
 * request per token for every caller that needs it at once.
 */
describe('upstream OAuth: one refresh per token in one process (embedded database)', () => {
  let stand: OAuthStand;
  let app: TestApp;
  let id: string;

  const call = () => app.request('POST', '/api/v1/llm/mcp-call-tool', { key: stand.tenant.key, body: { serverId: id, toolName: 'whoami', arguments: {} } });

  beforeAll(async () => {
    stand = await startOAuthStand({
      as: { accessTokenTtl: TTL_SECONDS },
      app: { embedded: true, env: { CREDENTIALS_KEY: randomBytes(32).toString('base64') } },
    });
    app = stand.app;
    id = await registerAuthorized(stand);
  }, 120_000);
  afterAll(async () => {
    await stand?.close();
  });

  it('makes exactly one refresh request when many calls and a discovery need a fresh token at once', async () => {
    expect((await call()).status).toBe(200);
    const before = (await stand.as.stats()).token.refresh_token ?? 0;
    await pastExpiry(app, stand.tenant.key, id, TTL_SECONDS);
    const [calls, discovery] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => call())),
      app.request('POST', `/api/v1/servers/${id}/discover`, { key: stand.tenant.key }),
    ]);
    expect(discovery.status).toBe(202);
    for (const res of calls) expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=alice')]);
    const row = await discoveryEnded(app, id);
    expect(row.status).toBe('CONNECTED');
    const stats = await stand.as.stats();
    expect(stats.token.refresh_token).toBe(before + 1);
    expect(stats.tokenErrors.refresh_token ?? 0).toBe(0);
  });
});
