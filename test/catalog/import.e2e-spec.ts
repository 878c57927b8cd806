import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateServerJson } from '@app/catalog';
import { useTestApp } from '../support/app';
import { makeTenant } from '../support/servers';

const FIXTURES = join(__dirname, '../fixtures/catalog');
const read = (dir: string, file: string) => JSON.parse(readFileSync(join(FIXTURES, dir, file), 'utf8'));
const files = (dir: string) => readdirSync(join(FIXTURES, dir)).filter((f) => f.endsWith('.json'));

/** What the reference README records as the schema's first reason for each invalid file. */
const EXPECTED_REFUSALS: Record<string, { field: string; message: RegExp }> = {
  'bad-name-pattern.json': { field: 'name', message: /must match the pattern/ },
  'description-too-long.json': { field: 'description', message: /more than 100 characters/ },
  'missing-name.json': { field: 'name', message: /is required/ },
  'package-version-latest.json': { field: 'packages.0.version', message: /must not be "latest"/ },
  'positional-argument-missing-value.json': { field: 'packages.0.packageArguments.0', message: /valueHint is required/ },
  'io.avax__avalanche-docs.json': { field: 'description', message: /more than 100/ },
  'io.decisionrules__mcp-server.json': { field: 'repository.source', message: /is required/ },
  'io.github.azender1__safeagent.json': { field: 'packages.0.registryType', message: /is required/ },
  'io.github.socalstreet.prwire-mcp-server.json': { field: 'packages.0.transport', message: /matches none of its alternatives/ },
  'com.github.cross-chain-optimizer.json': { field: 'name', message: /must match the pattern/ },
  'com.warppay402.api.json': { field: 'name', message: /must match the pattern/ },
  'io.github.goldminex__agent-token-stripper.json': { field: 'repository.source', message: /is required/ },
  'io.github.GMGNAI__gmgn-skills.json': { field: 'description', message: /more than 100/ },
  'io.github.blueskylineassets__agent-observability.json': { field: 'description', message: /more than 100/ },
  'io.github.strangeadvancedmarketing__adam-mcp.json': { field: 'description', message: /more than 100/ },
};

describe('catalog import', () => {
  const t = useTestApp({ worker: false });

  const catalogCount = () => t.runtime.prisma.catalogEntry.count();

  it.each([...files('examples/valid').map((f) => ['examples/valid', f]), ...files('examples/invalid').map((f) => ['examples/invalid', f]), ...files('published').map((f) => ['published', f])])(
    '%s/%s imports, or is refused with the reason the schema gives, changing nothing',
    async (dir, file) => {
      const doc = read(dir, file);
      const before = await catalogCount();
      const res = await t.request('POST', '/api/v1/catalog/import', { body: doc });
      const expected = EXPECTED_REFUSALS[file];
      if (!expected) {
        expect(validateServerJson(doc)).toEqual([]);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ format: 'server.json', added: 1, updated: 0, unchanged: 0, items: [{ at: '(root)', name: doc.name, version: doc.version, outcome: 'added' }] });
        const again = await t.request('POST', '/api/v1/catalog/import', { body: doc });
        expect(again.body).toMatchObject({ added: 0, unchanged: 1 });
        const stored = await t.runtime.prisma.catalogEntry.findFirstOrThrow({ where: { name: doc.name, version: doc.version } });
        expect(stored.serverJson).toEqual(doc);
        expect(stored).toMatchObject({ tenantId: null, sourceId: null, status: 'active', isLatest: true });
      } else {
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
        expect(res.body.detail).toMatch(/1 of 1 servers refused by the server.json schema \(2025-12-11\); nothing imported/);
        expect(res.body.errors).toContainEqual({ field: expected.field, message: expect.stringMatching(expected.message) });
        expect(res.body.errors).toEqual(validateServerJson(doc));
        expect(await catalogCount()).toBe(before);
      }
    },
  );

  it('imports a list all or nothing: one refused item names its fields and nothing of the list is stored', async () => {
    const good = { name: 'io.github.acme/list-one', description: 'One', version: '1.0.0' };
    const before = await catalogCount();
    const res = await t.request('POST', '/api/v1/catalog/import', { body: [good, { ...good, name: 'bad name', description: '' }, good] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: '1.name', message: expect.stringMatching(/pattern/) },
        { field: '1.description', message: expect.stringMatching(/fewer than 1|at least 1|NOT have fewer/) },
        { field: '2', message: 'has the same name and version as 0' },
      ]),
    );
    expect(await catalogCount()).toBe(before);
  });

  it('keeps the newest version as latest and updates a version whose content changed', async () => {
    const v = (version: string, description = 'Versions') => ({ name: 'io.github.acme/versions', description, version });
    expect((await t.request('POST', '/api/v1/catalog/import', { body: [v('1.2.0'), v('1.10.0'), v('1.9.0')] })).body).toMatchObject({ format: 'server.json list', added: 3 });
    const rows = await t.runtime.prisma.catalogEntry.findMany({ where: { name: 'io.github.acme/versions' }, orderBy: { version: 'asc' } });
    expect(rows.filter((r) => r.isLatest).map((r) => r.version)).toEqual(['1.10.0']);
    const res = await t.request('POST', '/api/v1/catalog/import', { body: [v('1.9.0', 'Changed'), v('1.2.0')] });
    expect(res.body).toMatchObject({ updated: 1, unchanged: 1, items: [{ outcome: 'updated' }, { outcome: 'unchanged' }] });
  });

  it('imports a Registry API list page with the status of each entry', async () => {
    const page = {
      servers: [
        { server: { name: 'io.github.acme/page-a', description: 'A', version: '1.0.0' }, _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } } },
        { server: { name: 'io.github.acme/page-b', description: 'B', version: '2.0.0' }, _meta: { 'io.modelcontextprotocol.registry/official': { status: 'deprecated', statusMessage: 'use page-a' } } },
      ],
      metadata: { count: 2, nextCursor: 'x' },
    };
    const res = await t.request('POST', '/api/v1/catalog/import', { body: page });
    expect(res.body).toMatchObject({ format: 'registry list', added: 2 });
    const b = await t.runtime.prisma.catalogEntry.findFirstOrThrow({ where: { name: 'io.github.acme/page-b' } });
    expect(b).toMatchObject({ status: 'deprecated', statusMessage: 'use page-a' });
    const listed = await t.request('GET', '/api/v1/catalog?q=page-&status=deprecated');
    expect(listed.body.entries.map((e: { name: string }) => e.name)).toEqual(['io.github.acme/page-b']);
  });

  it("imports a Claude Desktop config: stdio runners become packages, urls remotes, secret values are not kept", async () => {
    const config = {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@2026.8.31'], env: { MEMORY_FILE_PATH: '/tmp/memory.json' } },
        time: { command: 'uvx', args: ['mcp-server-time==0.6.2', '--local-timezone', 'Europe/Paris'] },
        github: { command: 'docker', args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server:v0.20.1'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_not-a-real-token-0001' } },
        local: { command: '/usr/local/bin/my-server', args: ['--stdio'] },
        linear: { url: 'https://mcp.linear.app/sse' },
        notion: { url: 'https://mcp.notion.com/mcp', headers: { Authorization: 'Bearer secret-notion-0002', 'X-Workspace': 'team' } },
        vscodeStyle: { type: 'http', url: 'https://example.com/stream' },
      },
    };
    const res = await t.request('POST', '/api/v1/catalog/import', { body: config });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'client config', added: 7 });
    expect(res.body.items.find((i: { at: string }) => i.at === 'mcpServers.github').withheld).toEqual(['mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN']);
    expect(res.body.items.find((i: { at: string }) => i.at === 'mcpServers.notion').withheld).toEqual(['mcpServers.notion.headers.Authorization']);
    const byName = async (key: string) => (await t.runtime.prisma.catalogEntry.findFirstOrThrow({ where: { name: `local.mcp-config/${key}` } })).serverJson as any;
    expect((await byName('memory')).packages[0]).toMatchObject({ registryType: 'npm', identifier: '@modelcontextprotocol/server-memory', version: '2026.8.31', runtimeHint: 'npx', environmentVariables: [{ name: 'MEMORY_FILE_PATH', value: '/tmp/memory.json' }] });
    expect((await byName('time')).packages[0]).toMatchObject({ registryType: 'pypi', identifier: 'mcp-server-time', version: '0.6.2', packageArguments: [{ type: 'positional', value: '--local-timezone' }, { type: 'positional', value: 'Europe/Paris' }] });
    expect((await byName('github')).packages[0]).toMatchObject({ registryType: 'oci', identifier: 'ghcr.io/github/github-mcp-server:v0.20.1', environmentVariables: [{ name: 'GITHUB_PERSONAL_ACCESS_TOKEN', isSecret: true, isRequired: true }] });
    expect((await byName('local'))._meta['dev.mcp-registry/client-config']).toEqual({ command: '/usr/local/bin/my-server', args: ['--stdio'], environmentVariables: [] });
    expect((await byName('linear')).remotes).toEqual([{ type: 'sse', url: 'https://mcp.linear.app/sse' }]);
    expect((await byName('notion')).remotes[0]).toEqual({ type: 'streamable-http', url: 'https://mcp.notion.com/mcp', headers: [{ name: 'Authorization', isRequired: true, isSecret: true }, { name: 'X-Workspace', value: 'team' }] });
    expect((await byName('vscodeStyle')).remotes[0].type).toBe('streamable-http');
    const everything = JSON.stringify(await t.runtime.prisma.catalogEntry.findMany());
    expect(everything).not.toContain('ghp_not-a-real-token-0001');
    expect(everything).not.toContain('secret-notion-0002');
  });

  it("imports VS Code's servers key, and a tenant's import goes into its own catalog", async () => {
    const tenant = await makeTenant(t);
    const res = await t.request('POST', '/api/v1/catalog/import', { key: tenant.key, body: { servers: { mine: { type: 'sse', url: 'https://example.com/events' } } } });
    expect(res.status).toBe(200);
    const row = await t.runtime.prisma.catalogEntry.findFirstOrThrow({ where: { name: 'local.mcp-config/mine' } });
    expect(row.tenantId).toBe(tenant.tenantId);
    const other = await makeTenant(t);
    const seen = await t.request('GET', '/api/v1/catalog?q=local.mcp-config/mine', { key: other.key });
    expect(seen.body.entries).toEqual([]);
    const own = await t.request('GET', '/api/v1/catalog?q=local.mcp-config/mine', { key: tenant.key });
    expect(own.body.entries).toHaveLength(1);
  });

  it('round trip: import, export, import again leaves the catalog unchanged', async () => {
    const exported = await t.request('GET', '/api/v1/catalog/export');
    expect(exported.status).toBe(200);
    expect(exported.body.servers.length).toBeGreaterThan(10);
    const before = await t.runtime.prisma.catalogEntry.findMany({ where: { tenantId: null }, orderBy: { id: 'asc' } });
    const res = await t.request('POST', '/api/v1/catalog/import', { body: exported.body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: 0, updated: 0, unchanged: exported.body.servers.length });
    expect(await t.runtime.prisma.catalogEntry.findMany({ where: { tenantId: null }, orderBy: { id: 'asc' } })).toEqual(before);
  });
});
