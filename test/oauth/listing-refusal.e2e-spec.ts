import { randomBytes } from 'node:crypto';
import { discoverNow, OAuthStand, registerAuthorized, startOAuthStand } from './oauth-stand';

/**
 * A server that accepts the token for initialize and refuses it for tools/list (its keys rotated between the two):
 * the discovery gets the same OAuth handling as at connect (one refresh, the session made again), and a refresh
 * the authorization server refuses ends in authorization expired.
 */
describe('upstream OAuth: a 401 while listing tools', () => {
  let stand: OAuthStand;
  let id: string;

  const discover = () => discoverNow(stand.app, stand.tenant.key, id);

  beforeAll(async () => {
    stand = await startOAuthStand({ as: { accessTokenTtl: 300 }, app: { env: { CREDENTIALS_KEY: randomBytes(32).toString('base64') } } });
    id = await registerAuthorized(stand);
  }, 90_000);
  afterAll(async () => {
    await stand?.close();
  });

  it('refreshes the token once and lists the tools on a new session', async () => {
    const before = (await stand.as.stats()).token.refresh_token ?? 0;
    stand.mcp.refuseListing = 1;
    const row = await discover();
    expect([row.status, row.statusReason]).toEqual(['CONNECTED', null]);
    expect(stand.mcp.refuseListing).toBe(0);
    expect((await stand.as.stats()).token.refresh_token).toBe(before + 1);
    const tools = await stand.app.request('GET', `/api/v1/servers/${id}/tools`, { key: stand.tenant.key });
    expect(tools.text).toContain('whoami');
  });

  it('ends in authorization expired when the refresh after the listing refusal is refused', async () => {
    expect(await stand.as.revokeRefreshTokens()).toBeGreaterThan(0);
    stand.mcp.refuseListing = 1;
    const row = await discover();
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/^authorization expired: the authorization server refused to refresh the token \(invalid_grant/);
    const view = await stand.app.request('GET', `/api/v1/servers/${id}`, { key: stand.tenant.key });
    expect(view.body.authorization.status).toBe('expired');
  });
});
