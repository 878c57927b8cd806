import { loadConfig } from '@app/config';
import { CredentialsCipher } from '@app/credentials';
import { ServerKind, ServerRecord, ServerStatus, TransportType } from '@app/domain';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { InProcessServers } from '../in-process/in-process-servers';
import { OutboundBlockedError, OutboundPolicy } from '../outbound-policy';
import { HttpTarget, StdioTarget } from './connection-target';
import { ConnectionTargetResolver } from './connection-target.resolver';
import { McpFailureCode } from './mcp-failure';
import { StdioWorkspaces } from './stdio-workspaces';

const key = randomBytes(32);

function config(extra: Record<string, string> = {}) {
  return loadConfig({ NODE_ENV: 'test', ADMIN_API_KEY: 'a'.repeat(32), CREDENTIALS_KEY: key.toString('base64'), DATA_DIR: '/tmp/mcpr-resolver-spec', ...extra });
}

function server(fields: Partial<ServerRecord>): ServerRecord {
  return {
    id: randomUUID(),
    tenantId: null,
    name: 'srv',
    kind: ServerKind.BUILT_IN,
    transport: TransportType.STREAMABLE_HTTP,
    url: 'https://mcp.example.com/mcp',
    command: null,
    args: [],
    env: {},
    headers: {},
    hasCredentials: false,
    credentialsEnv: null,
    enabled: true,
    metadata: {},
    discoveryIntervalSeconds: null,
    appSlug: null,
    accountId: null,
    status: ServerStatus.DISCOVERING,
    statusReason: null,
    serverName: null,
    serverTitle: null,
    serverVersion: null,
    protocolVersion: null,
    instructions: null,
    capabilities: null,
    toolCount: 0,
    resourceCount: null,
    promptCount: null,
    resourceTemplateCount: null,
    listingErrors: null,
    discoveryRequestedAt: null,
    lastDiscoveredAt: null,
    nextDiscoveryAt: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    toolPolicy: 'open',
    pendingToolChanges: 0,
    ...fields,
  };
}

const none = { credentialsCipher: null, credentialsEnv: null };

function resolverOn(cfg: ReturnType<typeof config>, inProcess = new InProcessServers()): ConnectionTargetResolver {
  const cipher = new CredentialsCipher(cfg.credentialsKey, cfg.previousCredentialsKeys);
  return new ConnectionTargetResolver(cfg, inProcess, new StdioWorkspaces(cfg), cipher, new OutboundPolicy(cfg.outboundAllow));
}

describe('turning a registration into a connection target', () => {
  const cfg = config();
  const cipher = new CredentialsCipher(cfg.credentialsKey);
  const resolver = resolverOn(cfg);

  it("applies a tenant server's encrypted credentials as headers and reaches it through the outbound policy", async () => {
    const s = server({ kind: ServerKind.CUSTOM, tenantId: randomUUID(), headers: { 'x-org': 'acme' } });
    const stored = { credentialsCipher: cipher.encrypt({ bearerToken: 'tok-1234567', headers: { 'X-Api-Key': 'key-7654321' } }, s.id), credentialsEnv: null };
    const target = (await resolver.resolve(s, stored)) as HttpTarget;
    expect(target.headers).toEqual({ 'x-org': 'acme', authorization: 'Bearer tok-1234567', 'x-api-key': 'key-7654321' });
    expect(target.secrets.sort()).toEqual(['Bearer tok-1234567', 'key-7654321', 'tok-1234567']);
    expect(target.fetch).not.toBe(globalThis.fetch);
  });

  it('refuses a tenant server on a private address before connecting, and a ciphertext of another server', async () => {
    const s = server({ kind: ServerKind.CUSTOM, tenantId: randomUUID(), url: 'http://10.1.2.3/mcp' });
    await expect(resolver.resolve(s, none)).rejects.toBeInstanceOf(OutboundBlockedError);
    const other = server({ kind: ServerKind.CUSTOM, tenantId: randomUUID() });
    const stolen = { credentialsCipher: cipher.encrypt({ bearerToken: 'x' }, randomUUID()), credentialsEnv: null };
    await expect(resolver.resolve(other, stolen)).rejects.toMatchObject({ code: McpFailureCode.CredentialsUnavailable });
  });

  it("reads a platform server's {env: VAR} credentials when it connects, and names the variable when it is unset", async () => {
    const s = server({ credentialsEnv: 'MCP_SECRET_SPEC_TOKEN' });
    const stored = { credentialsCipher: null, credentialsEnv: 'MCP_SECRET_SPEC_TOKEN' };
    delete process.env.MCP_SECRET_SPEC_TOKEN;
    await expect(resolver.resolve(s, stored)).rejects.toMatchObject({
      code: McpFailureCode.CredentialsUnavailable,
      message: "the environment variable MCP_SECRET_SPEC_TOKEN, which holds this server's credentials, is not set on the worker",
    });
    process.env.MCP_SECRET_SPEC_TOKEN = 'rotated-secret-1';
    const target = (await resolver.resolve(s, stored)) as HttpTarget;
    expect(target.headers.authorization).toBe('Bearer rotated-secret-1');
    expect(target.fetch).toBe(globalThis.fetch);
    // For stdio the variable is handed to the command, under its own name, and nothing else of ours is.
    const stdioServer = server({ transport: TransportType.STDIO, url: null, command: 'node', env: { MODE: 'x' } });
    const stdio = (await resolver.resolve(stdioServer, stored)) as StdioTarget;
    expect(stdio.env).toMatchObject({ MCP_SECRET_SPEC_TOKEN: 'rotated-secret-1', MODE: 'x', HOME: stdio.cwd });
    // The instance's own directory, not one shared by every registry on the machine.
    expect(stdio.cwd).toBe(`/tmp/mcpr-resolver-spec/stdio/${stdioServer.id}`);
    expect(stdio.env.CREDENTIALS_KEY).toBeUndefined();
    delete process.env.MCP_SECRET_SPEC_TOKEN;
  });

  it('refuses when connecting a reference to a variable not meant for servers, and reads one for an EXTERNAL server too', async () => {
    process.env.MCPR_SPEC_UNLISTED = 'not-meant-1';
    process.env.MCP_SECRET_SPEC_EXTERNAL = 'external-secret-1';
    try {
      for (const name of ['CREDENTIALS_KEY', 'MCPR_SPEC_UNLISTED']) {
        await expect(resolver.resolve(server({ credentialsEnv: name }), { credentialsCipher: null, credentialsEnv: name })).rejects.toMatchObject({
          code: McpFailureCode.CredentialsUnavailable,
          message: expect.stringContaining(`this server's credentials name the environment variable ${name}, which the registry refuses to send`),
        });
      }
      const listed = resolverOn(config({ CREDENTIAL_ENV_ALLOW: 'MCPR_SPEC_UNLISTED' }));
      const target = (await listed.resolve(server({}), { credentialsCipher: null, credentialsEnv: 'MCPR_SPEC_UNLISTED' })) as HttpTarget;
      expect(target.headers.authorization).toBe('Bearer not-meant-1');
      const external = (await resolver.resolve(server({ kind: ServerKind.EXTERNAL }), { credentialsCipher: null, credentialsEnv: 'MCP_SECRET_SPEC_EXTERNAL' })) as HttpTarget;
      expect(external.headers.authorization).toBe('Bearer external-secret-1');
      expect(external.secrets).toEqual(['external-secret-1', 'Bearer external-secret-1']);
    } finally {
      delete process.env.MCPR_SPEC_UNLISTED;
      delete process.env.MCP_SECRET_SPEC_EXTERNAL;
    }
  });

  it("never runs a tenant's command, and finds INTERNAL servers by name", async () => {
    const custom = server({ kind: ServerKind.CUSTOM, tenantId: randomUUID(), transport: TransportType.STDIO, command: 'sh', url: null });
    await expect(resolver.resolve(custom, none)).rejects.toMatchObject({ code: McpFailureCode.InvalidTarget });
    const inProcess = new InProcessServers();
    inProcess.register('echo', { title: 'Echo', description: 'echo', create: () => new McpServer({ name: 'echo', version: '1' }) });
    const r = resolverOn(cfg, inProcess);
    await expect(r.resolve(server({ kind: ServerKind.INTERNAL, transport: TransportType.IN_PROCESS, name: 'echo', url: null }), none)).resolves.toMatchObject({
      transport: 'in-process',
      name: 'echo',
    });
    await expect(r.resolve(server({ kind: ServerKind.INTERNAL, transport: TransportType.IN_PROCESS, name: 'nope', url: null }), none)).rejects.toMatchObject({
      code: McpFailureCode.InvalidTarget,
    });
  });

  it("sends Pipedream's token and headers for an INTEGRATION server, and says so when Pipedream is not configured", async () => {
    const integration = server({ kind: ServerKind.INTEGRATION, tenantId: randomUUID(), appSlug: 'slack', accountId: 'apn_123', url: null });
    await expect(resolver.resolve(integration, none)).rejects.toMatchObject({ code: McpFailureCode.CredentialsUnavailable });

    const tokens = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"pd-token-42","token_type":"Bearer","expires_in":3600}'));
    await new Promise<void>((r) => tokens.listen(0, '127.0.0.1', r));
    const apiUrl = `http://127.0.0.1:${(tokens.address() as { port: number }).port}`;
    try {
      const pd = config({ PIPEDREAM_CLIENT_ID: `id-${randomUUID()}`, PIPEDREAM_CLIENT_SECRET: 's', PIPEDREAM_PROJECT_ID: 'proj_1', PIPEDREAM_API_URL: apiUrl });
      const target = (await resolverOn(pd).resolve(integration, none)) as HttpTarget;
      expect(target.url.href).toBe('https://remote.mcp.pipedream.net/');
      expect(target.headers).toMatchObject({
        authorization: 'Bearer pd-token-42',
        'x-pd-project-id': 'proj_1',
        'x-pd-external-user-id': integration.tenantId,
        'x-pd-app-slug': 'slack',
        'x-pd-account-id': 'apn_123',
      });
      expect(target.secrets).toContain('pd-token-42');
    } finally {
      tokens.close();
    }
  });
});
