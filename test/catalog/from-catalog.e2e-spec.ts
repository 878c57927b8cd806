import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { makeTenant, watchSecrets } from '../support/tenants';
import { startTestApp } from '../support/app';
import { useStand } from '../support/stand';
import { settled } from '../support/servers';

const FIXTURES = join(__dirname, '../fixtures/catalog');

/** A remote with a URL template (host, port) and a secret header, the schema's shape of a hosted server. */
const templated = (name: string) => ({
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name,
  description: 'A remote reached through a URL template and a secret header',
  version: '1.0.0',
  remotes: [
    {
      type: 'streamable-http',
      url: 'http://{host}:{port}/mcp',
      headers: [
        { name: 'X-Api-Key', description: 'Your API key', isSecret: true, isRequired: true },
        { name: 'X-Team', description: 'Team', default: 'blue' },
      ],
      variables: { host: { description: 'The host', default: '127.0.0.1' }, port: { description: 'The port', isRequired: true } },
    },
  ],
});

/** Every argument kind: positional value/valueHint/default, named, repeated, boolean flag, runtime arguments. */
const packages = {
  name: 'io.github.acme/packaged',
  description: 'One package of each registry type',
  version: '3.1.0',
  packages: [
    {
      registryType: 'npm',
      identifier: '@acme/mcp',
      version: '3.1.0',
      runtimeHint: 'npx',
      transport: { type: 'stdio' },
      runtimeArguments: [{ type: 'named', name: '--node-options', value: '--max-old-space-size=256' }],
      packageArguments: [
        { type: 'positional', valueHint: 'root_dir', isRequired: true },
        { type: 'named', name: '--port', default: '8080' },
        { type: 'named', name: '--allow', isRepeated: true },
        { type: 'named', name: '--verbose', format: 'boolean' },
        { type: 'positional', value: 'serve' },
      ],
      environmentVariables: [
        { name: 'LOG_LEVEL', default: 'info' },
        { name: 'ACME_API_KEY', isSecret: true, isRequired: true },
      ],
    },
    { registryType: 'pypi', identifier: 'acme-mcp', version: '3.1.0', runtimeHint: 'uvx', transport: { type: 'stdio' } },
    { registryType: 'oci', identifier: 'ghcr.io/acme/mcp', version: '3.1.0', transport: { type: 'stdio' }, environmentVariables: [{ name: 'REGION', value: 'eu' }] },
    { registryType: 'nuget', identifier: 'Acme.Mcp', version: '3.1.0', runtimeHint: 'dnx', transport: { type: 'stdio' } },
    { registryType: 'mcpb', identifier: 'https://example.com/acme.mcpb', fileSha256: 'a'.repeat(64), transport: { type: 'stdio' } },
  ],
};

describe('servers made from catalog entries (fromCatalog)', () => {
  const seen: { key?: string; team?: string }[] = [];
  const s = useStand(async (keep) => {
    const t = keep(await startTestApp({ worker: true, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', CREDENTIAL_ENV_ALLOW: 'ACME_API_KEY' } }));
    const secrets = watchSecrets(t);
    const apiKey = secrets.secret('catalog-api-key');
    const upstream = keep(
      await startRawServer({
        name: 'catalog-upstream',
        onHttp: (req, res) => {
          seen.push({ key: req.headers['x-api-key'] as string | undefined, team: req.headers['x-team'] as string | undefined });
          if (req.headers['x-api-key'] === apiKey) return false;
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
          return true;
        },
        onToolsList: () => ({ result: { tools: [sampleTool('forecast'), sampleTool('alerts')] } }),
      }),
    );
    // Checked first after the tests: no secret in any answer or log line.
    keep(secrets, (w) => expect(w.leaks()).toEqual([]));
    const tenant = await makeTenant(t);
    const imported = await t.request('POST', '/api/v1/catalog/import', {
      body: [templated('io.github.acme/weather'), packages, JSON.parse(readFileSync(join(FIXTURES, 'examples/valid/with-package.json'), 'utf8'))],
    });
    expect(imported.status).toBe(200);
    return { t, tenant, upstream, apiKey };
  });

  it('lets a tenant instantiate a remote with a URL template and a secret header: a CUSTOM server that is discovered', async () => {
    const res = await s.t.request('POST', '/api/v1/servers', {
      key: s.tenant.key,
      body: { fromCatalog: { name: 'io.github.acme/weather', inputs: { port: String(s.upstream.port), 'X-Api-Key': s.apiKey } } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'weather',
      kind: 'MCP_SERVER_KIND_CUSTOM',
      transport: 'streamable-http',
      url: `http://127.0.0.1:${s.upstream.port}/mcp`,
      headers: { 'X-Team': 'blue' },
      hasCredentials: true,
      tenantId: s.tenant.tenantId,
      metadata: { 'catalog.name': 'io.github.acme/weather', 'catalog.version': '1.0.0' },
    });
    const row = await settled(s.t, res.body.id);
    expect(row.status).toBe('CONNECTED');
    expect(row.toolCount).toBe(2);
    expect(seen.some((h) => h.key === s.apiKey && h.team === 'blue')).toBe(true);
    expect(row.credentialsCipher).not.toContain(s.apiKey);
    // Neither the server's view, the listing nor the catalog export show it.
    await s.t.request('GET', `/api/v1/servers/${res.body.id}`, { key: s.tenant.key });
    await s.t.request('GET', '/api/v1/servers', { key: s.tenant.key });
    await s.t.request('GET', '/api/v1/catalog/export', { key: s.tenant.key });
    await s.t.request('GET', '/api/v1/catalog/export');
  });

  it('names each missing required input and each input the entry does not declare, and registers nothing', async () => {
    const before = await s.t.runtime.prisma.server.count();
    const res = await s.t.request('POST', '/api/v1/servers', { key: s.tenant.key, body: { name: 'w2', fromCatalog: { name: 'io.github.acme/weather', inputs: { colour: 'red' } } } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'fromCatalog.inputs.port', message: 'is required (The port)' },
        { field: 'fromCatalog.inputs.X-Api-Key', message: 'is required (Your API key)' },
        { field: 'fromCatalog.inputs.colour', message: 'is not an input of this remote or package' },
      ]),
    );
    const unknown = await s.t.request('POST', '/api/v1/servers', { key: s.tenant.key, body: { fromCatalog: { name: 'io.github.acme/nope', inputs: {} } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ field: 'fromCatalog.name', message: 'is not in the catalog' }]);
    const mixed = await s.t.request('POST', '/api/v1/servers', { key: s.tenant.key, body: { transport: 'sse', fromCatalog: { name: 'io.github.acme/weather' } } });
    expect(mixed.status).toBe(400);
    expect(mixed.body.errors[0].field).toBe('transport');
    const badHeader = await s.t.request('POST', '/api/v1/servers', {
      key: s.tenant.key,
      body: { name: 'w3', fromCatalog: { name: 'io.github.acme/weather', inputs: { port: String(s.upstream.port), 'X-Api-Key': 'a\nb' } } },
    });
    expect(badHeader.status).toBe(400);
    expect(await s.t.runtime.prisma.server.count()).toBe(before);
  });

  it('keeps packages for the admin: a tenant is refused', async () => {
    const res = await s.t.request('POST', '/api/v1/servers', { key: s.tenant.key, body: { fromCatalog: { name: 'io.github.acme/packaged', package: 1 } } });
    expect(res.status).toBe(403);
  });

  it('turns each package into a stdio BUILT_IN server with the command its registry type implies, without a shell', async () => {
    const make = (pkg: number, inputs: Record<string, string | string[]> = {}, name = `pkg-${pkg}`) =>
      s.t.request('POST', '/api/v1/servers', { body: { name, enabled: false, fromCatalog: { name: 'io.github.acme/packaged', package: pkg, inputs } } });
    const npm = await make(0, { root_dir: '/srv/data dir', '--allow': ['a.example', 'b.example'], '--verbose': 'true' });
    expect(npm.body.errors).toBeUndefined();
    expect(npm.status).toBe(201);
    expect(npm.body).toMatchObject({
      kind: 'MCP_SERVER_KIND_BUILT_IN',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '--node-options', '--max-old-space-size=256', '@acme/mcp@3.1.0', '/srv/data dir', '--port', '8080', '--allow', 'a.example', '--allow', 'b.example', '--verbose', 'serve'],
      env: { LOG_LEVEL: 'info' },
    });
    // The secret variable is the platform's own, passed to the program by name; never a stored value.
    const stored = await s.t.runtime.prisma.server.findUniqueOrThrow({ where: { id: npm.body.id } });
    expect(stored.credentialsEnv).toBe('ACME_API_KEY');
    const missing = await make(0, {}, 'pkg-missing');
    expect(missing.body.errors).toContainEqual({ field: 'fromCatalog.inputs.root_dir', message: 'is required (the root_dir argument)' });
    const given = await make(0, { root_dir: '/x', ACME_API_KEY: 'literal' }, 'pkg-secret-value');
    expect(given.status).toBe(400);
    expect(given.body.errors[0]).toMatchObject({ field: 'fromCatalog.inputs.ACME_API_KEY', message: expect.stringMatching(/is secret/) });
    expect((await make(1)).body).toMatchObject({ command: 'uvx', args: ['acme-mcp==3.1.0'] });
    expect((await make(2)).body).toMatchObject({ command: 'docker', args: ['run', '-i', '--rm', '-e', 'REGION', 'ghcr.io/acme/mcp:3.1.0'], env: { REGION: 'eu' } });
    expect((await make(3)).body).toMatchObject({ command: 'dnx', args: ['Acme.Mcp@3.1.0', '--yes'] });
    const mcpb = await make(4);
    expect(mcpb.status).toBe(400);
    expect(mcpb.body.errors).toEqual([{ field: 'fromCatalog.package', message: expect.stringMatching(/mcpb package, which the registry does not run/) }]);
  });
});
