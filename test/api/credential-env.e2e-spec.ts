import { randomBytes } from 'node:crypto';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { registerServer, settled } from '../support/servers';
import { expectProblem, fields } from '../support/tenants';

/**
 * A BUILT_IN server's `{env: NAME}` credentials: only variables the operator meant for servers (MCP_SECRET_*, or
 * listed in CREDENTIAL_ENV_ALLOW), never the registry's own settings, checked at registration and at connect time.
 */
describe('environment references in platform credentials', () => {
  let t: TestApp;
  let fixture: RawServer;
  const seen: (string | undefined)[] = [];
  const meant = `meant-${randomBytes(12).toString('hex')}`;
  const platformSecret = `platform-${randomBytes(12).toString('hex')}`;
  const saved = { ...process.env };

  beforeAll(async () => {
    // The variables the worker reads at connect time are this process's own.
    process.env.MCP_SECRET_CREDENTIAL_ENV_SPEC = meant;
    process.env.LEGACY_VENDOR_TOKEN = meant;
    process.env.CREDENTIALS_KEY = platformSecret;
    fixture = await startRawServer({
      name: 'records-authorization',
      onHttp: (req) => {
        seen.push(req.headers.authorization);
        return false;
      },
      onToolsList: () => ({ result: { tools: [sampleTool('echo')] } }),
    });
    t = await startTestApp({ env: { CREDENTIAL_ENV_ALLOW: 'LEGACY_VENDOR_TOKEN', DISCOVERY_ATTEMPTS: '2' } });
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
    for (const name of ['MCP_SECRET_CREDENTIAL_ENV_SPEC', 'LEGACY_VENDOR_TOKEN', 'CREDENTIALS_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it.each(['CREDENTIALS_KEY', 'ADMIN_API_KEY', 'DATABASE_URL', 'REDIS_URL', 'PIPEDREAM_CLIENT_SECRET', 'CREDENTIALS_KEYS_PREVIOUS', 'HOME', 'PATH', 'AWS_SECRET_ACCESS_KEY'])(
    'refuses {env: %s} at registration with a 400 naming credentials.env, storing nothing',
    async (name) => {
      const before = await t.runtime.prisma.server.count();
      const res = await t.request('POST', '/api/v1/servers', {
        body: { name: `env-${name}`, kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url, credentials: { env: name } },
      });
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual(['credentials.env']);
      expect(res.body.detail).toContain(name);
      const batch = await t.request('POST', '/api/v1/servers/batch', {
        body: { servers: [{ name: `batch-${name}`, kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url, credentials: { env: name } }] },
      });
      expectProblem(batch, 400);
      expect(fields(batch.body)).toEqual(['servers.0.credentials.env']);
      expect(await t.runtime.prisma.server.count()).toBe(before);
    },
  );

  it('accepts MCP_SECRET_* and the names of CREDENTIAL_ENV_ALLOW, and sends their value when connecting', async () => {
    for (const name of ['MCP_SECRET_CREDENTIAL_ENV_SPEC', 'LEGACY_VENDOR_TOKEN']) {
      seen.length = 0;
      const { id } = await registerServer(t, { name: `ok-${name}`, kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url, credentials: { env: name } });
      expect((await settled(t, id)).status).toBe('CONNECTED');
      expect(seen).toContain(`Bearer ${meant}`);
    }
  });

  it('refuses a change to a platform variable, keeping the reference it had', async () => {
    const { id } = await registerServer(t, { name: 'patched', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url, credentials: { env: 'MCP_SECRET_CREDENTIAL_ENV_SPEC' } });
    const res = await t.request('PATCH', `/api/v1/servers/${id}`, { body: { credentials: { env: 'CREDENTIALS_KEY' } } });
    expectProblem(res, 400);
    expect(fields(res.body)).toEqual(['credentials.env']);
    expect((await t.runtime.prisma.server.findUniqueOrThrow({ where: { id } })).credentialsEnv).toBe('MCP_SECRET_CREDENTIAL_ENV_SPEC');
  });

  it('refuses at connect time a reference stored before the rule: ERROR with the reason, not retried, nothing sent', async () => {
    const { id } = await registerServer(t, { name: 'stored-before', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url, credentials: { env: 'MCP_SECRET_CREDENTIAL_ENV_SPEC' } });
    await settled(t, id);
    // As a row written by an earlier version would hold it.
    await t.runtime.prisma.server.update({ where: { id }, data: { credentialsEnv: 'CREDENTIALS_KEY' } });
    seen.length = 0;
    expect((await t.request('POST', `/api/v1/servers/${id}/discover`)).status).toBe(202);
    const row = await settled(t, id);
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toBe(
      "this server's credentials name the environment variable CREDENTIALS_KEY, which the registry refuses to send: CREDENTIALS_KEY is a setting of the registry itself; a server's credentials cannot name it",
    );
    const runs = await t.runtime.prisma.discoveryRun.findMany({ where: { serverId: id }, orderBy: { startedAt: 'asc' } });
    expect(runs.map((r) => r.outcome)).toEqual(['SUCCEEDED', 'FAILED']);
    expect(seen.some((h) => h?.includes(platformSecret))).toBe(false);
    expect(JSON.stringify(await t.request('GET', `/api/v1/servers/${id}`))).not.toContain(platformSecret);
  });
});
