import { CredentialsCipher } from '@app/credentials';
import { QueueName } from '@app/queue';
import { AuthorizationServer, consentAs, ProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { TestApp } from '../support/app';
import { makeTenant, settled, waitFor } from '../support/servers';
import { OAuthStand, startBlockedAuthorizationServer, startOAuthStand } from './oauth-stand';

/**
 * What upstream OAuth refuses and what it never shows: a state replayed, expired or completed with another
 * tenant's code; an authorization server on a blocked address; another tenant's server; forgetting tokens
 * (revoked at the authorization server); and no token, secret, code or state in any answer, log line, audit
 * record, job payload or metric.
 */
describe('upstream OAuth: refusals, isolation and secrets', () => {
  let stand: OAuthStand;
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let t: TestApp;
  let publicUrl: string;
  let a: { tenantId: string; key: string };
  let b: { tenantId: string; key: string };
  const answers: string[] = [];
  /** Every code the authorization server sent back in these tests, and every state (which only the authorization URL may carry). */
  const codes: string[] = [];
  const states: string[] = [];

  const req = async (method: string, path: string, key: string | null, body?: unknown) => {
    const res = await t.request(method, path, { key, ...(body !== undefined ? { body } : {}) });
    answers.push(res.text, JSON.stringify([...res.headers]));
    return res;
  };
  const register = async (key: string, name: string, url = mcp.url) => {
    const res = await req('POST', '/api/v1/servers', key, { name, transport: 'streamable-http', url });
    expect(res.status).toBe(201);
    await settled(t, res.body.id);
    return res.body.id as string;
  };
  /** Starts an authorization and lets the person consent, stopping at the registry's callback URL. */
  const consentUpToCallback = async (key: string, id: string) => {
    const started = await req('POST', `/api/v1/servers/${id}/authorize`, key);
    expect(started.status).toBe(200);
    const { callbackUrl } = await consentAs(started.body.authorizationUrl, 'carol', { callbackPrefix: `${publicUrl}/oauth/callback`, stopAtCallback: true });
    const u = new URL(callbackUrl);
    codes.push(u.searchParams.get('code')!);
    states.push(u.searchParams.get('state')!);
    return u;
  };
  const openCallback = async (url: URL) => {
    const res = await fetch(url);
    const html = await res.text();
    answers.push(html);
    return { status: res.status, html };
  };
  const tokensOf = async (id: string) => (await t.runtime.prisma.serverOAuth.findUnique({ where: { serverId: id } }))?.tokensCipher ?? null;

  beforeAll(async () => {
    stand = await startOAuthStand({ mcp: { scopesSupported: undefined }, app: { env: { LOG_LEVEL: 'debug' } } });
    ({ as, mcp, app: t, publicUrl, tenant: a } = stand);
    b = await makeTenant(t);
  }, 60_000);
  afterAll(async () => {
    await stand?.close();
  });

  it('refuses a replayed state, and stores nothing more', async () => {
    const id = await register(a.key, 'replayed');
    const callback = await consentUpToCallback(a.key, id);
    expect((await openCallback(callback)).status).toBe(200);
    const stored = await tokensOf(id);
    expect(stored).toMatch(/^v1\./);
    const replay = await openCallback(callback);
    expect(replay.status).toBe(400);
    expect(replay.html).toContain('this authorization is unknown or was already completed');
    expect(await tokensOf(id)).toBe(stored);
    // A state that was never issued, and no state at all.
    const forged = new URL(callback);
    forged.searchParams.set('state', 'not-a-state-the-registry-made');
    expect((await openCallback(forged)).status).toBe(400);
    forged.searchParams.delete('state');
    expect((await openCallback(forged)).html).toContain('carries no state');
  });

  it('refuses an expired state, and stores nothing', async () => {
    const id = await register(a.key, 'expired');
    const started = await req('POST', `/api/v1/servers/${id}/authorize`, a.key);
    // The link's ten minutes, run out.
    await t.runtime.prisma.oAuthRequest.updateMany({ where: { serverId: id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const page = await consentAs(started.body.authorizationUrl, 'carol', { callbackPrefix: `${publicUrl}/oauth/callback` });
    answers.push(page.html);
    expect(page.status).toBe(400);
    expect(page.html).toContain('this authorization expired before it was completed');
    expect(await tokensOf(id)).toBeNull();
    expect((await req('GET', `/api/v1/servers/${id}`, a.key)).body.authorization.status).toBe('required');
  });

  it("refuses a state completed with another tenant's code, and keeps tenants apart", async () => {
    const mine = await register(a.key, 'mine');
    const theirs = await register(b.key, 'theirs');
    const aCallback = await consentUpToCallback(a.key, mine);
    const bCallback = await consentUpToCallback(b.key, theirs);
    // B's state with the code A's person obtained: B's verifier does not match A's challenge (PKCE).
    const swapped = new URL(bCallback);
    swapped.searchParams.set('code', aCallback.searchParams.get('code')!);
    const page = await openCallback(swapped);
    expect(page.status).toBe(400);
    expect(page.html).toContain('the authorization server refused the code');
    expect(await tokensOf(theirs)).toBeNull();
    expect(await tokensOf(mine)).toBeNull();

    // B can neither authorize, read the authorization of, forget, nor call A's server.
    expect((await req('POST', `/api/v1/servers/${mine}/authorize`, b.key)).status).toBe(404);
    expect((await req('GET', `/api/v1/servers/${mine}`, b.key)).status).toBe(404);
    expect((await req('DELETE', `/api/v1/servers/${mine}/authorization`, b.key)).status).toBe(404);
    expect((await openCallback(aCallback)).status).toBe(200);
    await waitFor('A connected', async () => (await settled(t, mine)).status === 'CONNECTED');
    const used = await req('POST', '/api/v1/llm/mcp-call-tool', b.key, { serverId: mine, toolName: 'whoami', arguments: {} });
    expect(used.status).toBe(404);
    const own = await req('POST', '/api/v1/llm/mcp-call-tool', a.key, { serverId: mine, toolName: 'whoami', arguments: {} });
    expect([own.status, own.text]).toEqual([200, expect.stringContaining('sub=carol')]);
    // A tenant may not authorize the platform's servers either (the admin does).
    const builtIn = await req('POST', '/api/v1/servers', t.adminKey, { name: 'platform-notes', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'streamable-http', url: mcp.url });
    expect(builtIn.status).toBe(201);
    await settled(t, builtIn.body.id);
    expect((await req('POST', `/api/v1/servers/${builtIn.body.id}/authorize`, a.key)).status).toBe(403);
    expect((await req('POST', `/api/v1/servers/${builtIn.body.id}/authorize`, t.adminKey)).status).toBe(200);
  });

  it('refuses an authorization server on a blocked address before any request reaches it', async () => {
    const blocked = await startBlockedAuthorizationServer(as.issuer);
    try {
      const res = await req('POST', '/api/v1/servers', a.key, { name: 'hostile', transport: 'streamable-http', url: blocked.mcp.url });
      const row = await settled(t, res.body.id);
      expect(row.status).toBe('ERROR');
      expect(row.statusReason).toMatch(
        /^authorization required: the server asks for OAuth, but its authorization server https:\/\/127\.0\.0\.2:\d+ cannot be reached: the outbound address policy refused it: 127\.0\.0\.2 .*loopback/,
      );
      expect(blocked.connections()).toBe(0);
    } finally {
      await blocked.close();
    }
  });

  it('forgets the tokens, revoking them at the authorization server', async () => {
    const id = await register(a.key, 'forgotten');
    expect((await openCallback(await consentUpToCallback(a.key, id))).status).toBe(200);
    await waitFor('connected', async () => (await settled(t, id)).status === 'CONNECTED');
    const before = await as.stats();
    const res = await req('DELETE', `/api/v1/servers/${id}/authorization`, a.key);
    expect([res.status, res.body]).toEqual([200, { revoked: true }]);
    const after = await as.stats();
    expect(after.revocations).toBe(before.revocations + 2);
    // The grant is gone at the authorization server: its refresh token no longer exists there.
    expect(after.refreshTokens).toBe(before.refreshTokens - 1);
    expect(await tokensOf(id)).toBeNull();
    const server = await req('GET', `/api/v1/servers/${id}`, a.key);
    expect(server.body.status).toBe('MCP_SERVER_CONNECTION_STATUS_ERROR');
    expect(server.body.statusReason).toMatch(/^authorization required: its tokens were forgotten/);
    expect(server.body.authorization).toMatchObject({ status: 'required', issuer: as.issuer });
  });

  it('shows no token, client secret, code or state anywhere', async () => {
    const cipher = new CredentialsCipher(t.config.credentialsKey);
    const clients = await t.runtime.prisma.oAuthClient.findMany();
    expect(clients).toHaveLength(1);
    const clientSecret = cipher.open<string>(clients[0].clientSecretCipher!, `oauth-client:${clients[0].issuer}`);
    const secrets = [...mcp.tokensSeen, clientSecret, ...codes].filter((s) => s && s.length >= 8);
    expect(mcp.tokensSeen.size).toBeGreaterThan(2);
    const audit = await t.runtime.prisma.auditEvent.findMany();
    const queue = t.runtime.queue.createQueue(QueueName.Discovery);
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed']);
    const metrics = await fetch(`${t.baseUrl}/metrics`).then((r) => r.text());
    const servers = await t.runtime.prisma.server.findMany();
    const places = { answers: answers.join('\n'), logs: t.logs(), audit: JSON.stringify(audit), jobs: JSON.stringify(jobs.map((j) => j.data)), metrics, servers: JSON.stringify(servers) };
    expect(audit.some((e) => e.action === 'oauth.callback')).toBe(true);
    for (const [where, text] of Object.entries(places)) {
      const found = [...secrets, ...(where === 'answers' ? [] : states)].filter((s) => text.includes(s));
      expect({ where, found }).toEqual({ where, found: [] });
    }
    // The state is in the authorization URL it was made for, and in no other answer.
    for (const state of states) expect(answers.filter((x) => x.includes(state))).toHaveLength(1);
  });
});
