import { AuthorizationServer, consentAs, ProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { mcpClient } from '../llm/helpers';
import { TestApp } from '../support/app';
import { makeTenant, settled, waitFor } from '../support/servers';
import { OAuthStand, startOAuthStand } from './oauth-stand';

/**
 * The whole authorization code flow against a real authorization server (oidc-provider) and an MCP server that
 * accepts only its JWT access tokens: detection after the 401, dynamic client registration, the person's login
 * and consent on the provider's own pages, the callback, tokens stored, the server CONNECTED with its tools and
 * a tool call through the registry's /mcp carrying the person's token.
 */
describe('upstream OAuth: authorization code with PKCE', () => {
  let stand: OAuthStand;
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let t: TestApp;
  let publicUrl: string;

  beforeAll(async () => {
    stand = await startOAuthStand({ as: { resourceScopes: ['tools:read', 'tools:call'] } });
    ({ as, mcp, app: t, publicUrl } = stand);
  }, 60_000);
  afterAll(async () => {
    await stand?.close();
  });

  it('detects, registers, sends the person through consent, connects, and calls a tool with the token', async () => {
    const tenant = await makeTenant(t);
    const created = await t.request('POST', '/api/v1/servers', { key: tenant.key, body: { name: 'notes', transport: 'streamable-http', url: mcp.url } });
    expect(created.status).toBe(201);
    expect(created.body.authorization).toEqual({ status: 'none' });
    const id = created.body.id as string;

    // Detection: the 401's resource metadata, then the authorization server's metadata (OpenID Connect discovery here).
    const failed = await settled(t, id);
    expect(failed.status).toBe('ERROR');
    expect(failed.statusReason).toMatch(/^authorization required: the server is protected by OAuth \(authorization server http:\/\/127\.0\.0\.1:\d+\)/);
    const required = await t.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    expect(required.body.authorization).toEqual({ status: 'required', issuer: as.issuer, scopes: ['tools:read', 'tools:call'] });

    const started = await t.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
    expect([started.status, started.body.detail]).toEqual([200, undefined]);
    const authorizationUrl = new URL(started.body.authorizationUrl);
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${as.issuer}/auth`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcp.resource);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`${publicUrl}/oauth/callback`);
    expect(authorizationUrl.searchParams.get('scope')).toBe('tools:read tools:call offline_access');
    expect(Date.parse(started.body.expiresAt)).toBeGreaterThan(Date.now());
    expect((await as.stats()).registrations).toBe(1);

    const page = await consentAs(started.body.authorizationUrl, 'alice', { callbackPrefix: `${publicUrl}/oauth/callback` });
    expect(page.status).toBe(200);
    expect(page.html).toContain('The server &quot;notes&quot; is authorized');

    const connected = await waitFor('the server to be discovered with its token', async () => {
      const row = await settled(t, id);
      return row.status === 'CONNECTED' ? row : row.statusReason === 'discovery queued' ? undefined : row;
    });
    expect(connected.status).toBe('CONNECTED');
    const view = await t.request('GET', `/api/v1/servers/${id}`, { key: tenant.key });
    expect(view.body.authorization).toMatchObject({ status: 'authorized', issuer: as.issuer, scopes: expect.arrayContaining(['tools:read', 'tools:call']) });
    expect(Date.parse(view.body.authorization.expiresAt)).toBeGreaterThan(Date.now());
    const tools = await t.request('GET', `/api/v1/servers/${id}/tools`, { key: tenant.key });
    expect(tools.body.tools.map((x: { name: string }) => x.name).sort()).toEqual(['whoami', 'write_note']);

    // A tool call through the registry's own MCP endpoint reaches the server with alice's token.
    const client = await mcpClient(t, tenant.key);
    try {
      const result = (await client.callTool({ name: 'call_tool', arguments: { serverId: id, toolName: 'whoami', arguments: {} } })) as { content: { text: string }[]; isError?: boolean };
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.content)).toContain('sub=alice');
    } finally {
      await client.close();
    }
    const stats = await as.stats();
    expect(stats.token.authorization_code).toBe(1);
    expect(stats.registrations).toBe(1);

    // Tokens are stored sealed, and the audit log holds every step without a secret.
    const row = await t.runtime.prisma.serverOAuth.findUniqueOrThrow({ where: { serverId: id } });
    expect(row.tokensCipher).toMatch(/^v1\./);
    for (const token of mcp.tokensSeen) {
      expect(row.tokensCipher).not.toContain(token);
      expect(t.logs()).not.toContain(token);
    }
    const audit = await t.request('GET', `/api/v1/audit?resourceId=${id}&pageSize=100`);
    const actions = audit.body.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['oauth.detect', 'oauth.register', 'oauth.authorize', 'oauth.callback']));
    for (const token of mcp.tokensSeen) expect(audit.text).not.toContain(token);
  });

  it('serves its client ID metadata document', async () => {
    const res = await t.request('GET', '/oauth/client-metadata.json', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      client_id: `${publicUrl}/oauth/client-metadata.json`,
      redirect_uris: [`${publicUrl}/oauth/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
  });
});
