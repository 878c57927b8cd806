import { createServer, Socket } from 'node:net';
import { freePort } from '../fixtures/net';
import {
  AuthorizationServer,
  AuthorizationServerConfig,
  authorizeAs,
  ProtectedMcpServer,
  ProtectedMcpServerOptions,
  startAuthorizationServer,
  startProtectedMcpServer,
} from '../fixtures/oauth/oauth-fixtures';
import { startTestApp, TestApp, TestAppOptions } from '../support/app';
import { makeTenant, ServerRow, settled, waitFor } from '../support/servers';
import { useStand } from '../support/stand';

/** The scopes the OAuth tests' MCP server lists as supported, unless a test says otherwise. */
const SCOPES = ['tools:read', 'tools:call'];

/**
 * What an upstream OAuth test stands on: a real authorization server, an MCP server that accepts only its
 * tokens, and a registry on a port of its own (PUBLIC_URL is where the authorization server sends the person
 * back; loopback servers allowed; one discovery attempt) with one tenant.
 */
export interface OAuthStand {
  as: AuthorizationServer;
  mcp: ProtectedMcpServer;
  app: TestApp;
  publicUrl: string;
  tenant: { tenantId: string; key: string };
  close(): Promise<void>;
}

export interface OAuthStandOptions {
  as?: AuthorizationServerConfig;
  /** Options of the MCP server beyond the authorization server it trusts. */
  mcp?: Partial<ProtectedMcpServerOptions>;
  /** How the registry runs; `env` is added to the stand's own. */
  app?: TestAppOptions;
}

export async function startOAuthStand(options: OAuthStandOptions = {}): Promise<OAuthStand> {
  const as = await startAuthorizationServer(options.as);
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: SCOPES, ...options.mcp });
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const app = await startTestApp({
    ...options.app,
    env: { PORT: String(port), PUBLIC_URL: publicUrl, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', ...options.app?.env },
  });
  const tenant = await makeTenant(app);
  return {
    as,
    mcp,
    app,
    publicUrl,
    tenant,
    close: async () => {
      await app.close();
      await mcp.close();
      await as.close();
    },
  };
}

/** Waits until the server's discovery has ended (not merely been queued): its row then. */
export function discoveryEnded(app: TestApp, id: string): Promise<ServerRow> {
  return waitFor('the discovery to end', async () => {
    const row = await settled(app, id);
    return row.statusReason === 'discovery queued' ? undefined : row;
  });
}

/** Asks for a discovery of the server now (202) and waits until it has ended: its row then. */
export async function discoverNow(app: TestApp, key: string, id: string): Promise<ServerRow> {
  const res = await app.request('POST', `/api/v1/servers/${id}/discover`, { key });
  expect(res.status).toBe(202);
  return discoveryEnded(app, id);
}

/**
 * Registers the stand's MCP server for its tenant, lets alice authorize it through the authorization server's
 * own pages, and waits until it is CONNECTED with her token: the server's id.
 */
export async function registerAuthorized(stand: OAuthStand, name = 'notes'): Promise<string> {
  const { app, tenant } = stand;
  const created = await app.request('POST', '/api/v1/servers', { key: tenant.key, body: { name, transport: 'streamable-http', url: stand.mcp.url } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await settled(app, id);
  expect((await authorizeAs(app, stand.publicUrl, tenant.key, id)).status).toBe(200);
  await waitFor('CONNECTED', async () => ((await settled(app, id)).status === 'CONNECTED' ? true : undefined));
  return id;
}

/** The stand with its MCP server registered and authorized (`id`), as a test file's describe stands on it. */
export interface AuthorizedStand extends OAuthStand {
  id: string;
}

/**
 * The stand of one `describe`, its MCP server registered and authorized by alice: set up by a `beforeAll` hook
 * (within `timeoutMs`) and closed by an `afterAll` hook, both registered where this is called.
 */
export function useAuthorizedStand(options: OAuthStandOptions, timeoutMs: number): AuthorizedStand {
  return useStand(async (keep) => {
    const stand = keep(await startOAuthStand(options));
    return { ...stand, id: await registerAuthorized(stand) };
  }, timeoutMs);
}

/** A call of the MCP server's tool `whoami`, which says who the access token it was called with was issued to. */
export function callWhoami(app: TestApp, key: string, serverId: string) {
  return app.request('POST', '/api/v1/llm/mcp-call-tool', { key, body: { serverId, toolName: 'whoami', arguments: {} } });
}

/** Waits until the access token held for the server has expired (its lifetime is the only clock here). */
export async function pastExpiry(app: TestApp, key: string, id: string, ttlSeconds: number): Promise<void> {
  const view = await app.request('GET', `/api/v1/servers/${id}`, { key });
  const at = Date.parse(view.body.authorization.expiresAt);
  await waitFor('the access token to expire', async () => Date.now() > at + 50, (ttlSeconds + 2) * 1000, 100);
}

/**
 * A TCP listener on 127.0.0.2 (a loopback address the outbound policy refuses for tenants' servers, 127.0.0.1
 * being the one allowed) that counts connections and drops them, named as an authorization server by an MCP
 * server that trusts `issuer`: a test shows that no request ever reaches it.
 */
export async function startBlockedAuthorizationServer(issuer: string): Promise<{ mcp: ProtectedMcpServer; connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const trap = createServer((s: Socket) => {
    connections++;
    s.destroy();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => trap.listen(port, '127.0.0.2', resolve));
  const mcp = await startProtectedMcpServer({ issuer, jwksUri: `${issuer}/jwks`, authorizationServer: `https://127.0.0.2:${port}` });
  return {
    mcp,
    connections: () => connections,
    close: async () => {
      await mcp.close();
      await new Promise((resolve) => trap.close(resolve));
    },
  };
}
