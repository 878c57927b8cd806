import { randomBytes } from 'node:crypto';
import { freePort } from '../fixtures/net';
import { AuthorizationServer, authorizeAs, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, settled, waitFor } from '../support/servers';

/**
 * Authorization servers as they come: an issuer with a path whose metadata is only at the OpenID Connect
 * location and that registers no clients (a pre-registered one is given), machine-to-machine servers (client
 * credentials), a challenge that names its scope, and a tool that needs more scope than was granted.
 */
describe('upstream OAuth: authorization servers and grants', () => {
  let pathIssuer: AuthorizationServer;
  let rootIssuer: AuthorizationServer;
  const servers: ProtectedMcpServer[] = [];
  let t: TestApp;
  let publicUrl: string;
  let tenant: { tenantId: string; key: string };
  const clientSecret = `registry-secret-${randomBytes(12).toString('hex')}`;
  const machineSecret = `machine-secret-${randomBytes(12).toString('hex')}`;

  const register = async (name: string, url: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/v1/servers', { key: tenant.key, body: { name, transport: 'streamable-http', url, ...extra } });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    return res.body.id as string;
  };
  const connected = (id: string) =>
    waitFor(`server ${id} CONNECTED`, async () => {
      const row = await settled(t, id);
      return row.status === 'CONNECTED' ? row : row.statusReason === 'discovery queued' ? undefined : row;
    });
  const view = async (id: string) => (await t.request('GET', `/api/v1/servers/${id}`, { key: tenant.key })).body;
  const call = (id: string, toolName: string, args: Record<string, unknown> = {}) =>
    t.request('POST', '/api/v1/llm/mcp-call-tool', { key: tenant.key, body: { serverId: id, toolName, arguments: args } });

  beforeAll(async () => {
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    [pathIssuer, rootIssuer] = await Promise.all([
      startAuthorizationServer({
        path: '/tenant1',
        registration: false,
        clients: [
          {
            client_id: 'registry',
            client_secret: clientSecret,
            redirect_uris: [`${publicUrl}/oauth/callback`],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            application_type: 'native',
            token_endpoint_auth_method: 'client_secret_basic',
          },
          { client_id: 'machine', client_secret: machineSecret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] },
        ],
      }),
      startAuthorizationServer({ resourceScopes: ['tools:read', 'tools:call', 'notes:write'] }),
    ]);
    t = await startTestApp({ env: { PORT: String(port), PUBLIC_URL: publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1' } });
    tenant = await makeTenant(t);
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    for (const s of servers) await s.close();
    await pathIssuer?.close();
    await rootIssuer?.close();
  });

  it('finds an issuer with a path at its OpenID Connect location; without registration it says what to give; a pre-registered client connects', async () => {
    const mcp = await startProtectedMcpServer({ issuer: pathIssuer.issuer, jwksUri: `${pathIssuer.issuer}/jwks`, metadataIn: 'well-known' });
    servers.push(mcp);
    expect(pathIssuer.issuer).toMatch(/\/tenant1$/);
    const plain = await register('no-client', mcp.url);
    const failed = await settled(t, plain);
    expect(failed.statusReason).toMatch(/^authorization required: the server is protected by OAuth/);
    expect((await view(plain)).authorization).toMatchObject({ status: 'required', issuer: pathIssuer.issuer });
    const refused = await t.request('POST', `/api/v1/servers/${plain}/authorize`, { key: tenant.key });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('offers no dynamic client registration');
    expect(refused.body.detail).toContain(`register a client there with the redirect URI ${publicUrl}/oauth/callback and give it on the server as auth: {clientId, clientSecret}`);

    const id = await register('pre-registered', mcp.url, { auth: { clientId: 'registry', clientSecret } });
    expect((await view(id)).auth).toEqual({ clientId: 'registry', hasClientSecret: true });
    await settled(t, id);
    const page = await authorizeAs(t, publicUrl, tenant.key, id, 'bob');
    expect([page.status, page.html]).toEqual([200, expect.stringContaining('is authorized')]);
    expect((await connected(id)).status).toBe('CONNECTED');
    const res = await call(id, 'whoami');
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=bob')]);
    const stats = await pathIssuer.stats();
    expect(stats.registrations).toBe(0);
    expect(stats.token.authorization_code).toBe(1);
    expect(JSON.stringify((await t.request('GET', `/api/v1/servers/${id}`, { key: tenant.key })).body)).not.toContain(clientSecret);
  });

  it('connects a machine-to-machine server with the client credentials grant, with no person', async () => {
    const mcp = await startProtectedMcpServer({ issuer: pathIssuer.issuer, jwksUri: `${pathIssuer.issuer}/jwks` });
    servers.push(mcp);
    const missing = await t.request('POST', '/api/v1/servers', {
      key: tenant.key,
      body: { name: 'cc-bad', transport: 'streamable-http', url: mcp.url, auth: { grant: 'client_credentials', clientId: 'machine' } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ field: 'auth.clientSecret', message: 'the client_credentials grant needs the client secret' }]);

    const id = await register('machine', mcp.url, { auth: { grant: 'client_credentials', clientId: 'machine', clientSecret: machineSecret } });
    expect((await connected(id)).status).toBe('CONNECTED');
    expect((await view(id)).authorization).toMatchObject({ status: 'authorized', issuer: pathIssuer.issuer });
    const res = await call(id, 'whoami');
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('sub=machine')]);
    expect((await pathIssuer.stats()).token.client_credentials).toBe(1);
    const person = await t.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
    expect(person.status).toBe(409);
    expect(person.body.detail).toContain('client credentials grant');
  });

  it('asks for the scope the challenge names, and for the union once a tool needs more', async () => {
    const mcp = await startProtectedMcpServer({
      issuer: rootIssuer.issuer,
      jwksUri: `${rootIssuer.issuer}/jwks`,
      challengeScopes: ['tools:call'],
      scopesSupported: ['tools:read', 'tools:call', 'notes:write'],
      toolScopes: { write_note: 'notes:write' },
    });
    servers.push(mcp);
    const id = await register('scoped', mcp.url);
    await settled(t, id);
    expect((await view(id)).authorization).toEqual({ status: 'required', issuer: rootIssuer.issuer, scopes: ['tools:call'] });
    const started = await t.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
    expect(new URL(started.body.authorizationUrl).searchParams.get('scope')).toBe('tools:call offline_access');
    expect((await authorizeAs(t, publicUrl, tenant.key, id)).status).toBe(200);
    expect((await connected(id)).status).toBe('CONNECTED');
    expect((await call(id, 'whoami')).status).toBe(200);

    // write_note needs notes:write: the 403 insufficient_scope is explained, and the next authorization asks for the union.
    const refused = await call(id, 'write_note', { text: 'hello' });
    expect(refused.status).toBe(502);
    expect(refused.body.detail).toContain('the server needs the scopes notes:write for this: authorize again');
    const again = await t.request('POST', `/api/v1/servers/${id}/authorize`, { key: tenant.key });
    expect(new URL(again.body.authorizationUrl).searchParams.get('scope')).toBe('tools:call notes:write offline_access');
    const page = await authorizeAs(t, publicUrl, tenant.key, id);
    expect(page.status).toBe(200);
    await connected(id);
    const written = await call(id, 'write_note', { text: 'hello' });
    expect([written.status, written.text]).toEqual([200, expect.stringContaining('written: hello')]);
    expect((await view(id)).authorization.scopes).toEqual(expect.arrayContaining(['tools:call', 'notes:write']));
  });
});
