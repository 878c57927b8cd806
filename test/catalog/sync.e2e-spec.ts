import { CatalogSyncService } from '@app/catalog';
import { startFixtureRegistry } from '../fixtures/catalog/fixture-registry';
import { useTestApp } from '../support/app';
import { makeTenant, waitFor } from '../support/servers';

describe('catalog sources: syncing from an upstream Registry API', () => {
  const t = useTestApp({ worker: true, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });

  const source = (id: string) => t.runtime.prisma.catalogSource.findUniqueOrThrow({ where: { id } });
  const entry = (name: string) => t.runtime.prisma.catalogEntry.findFirst({ where: { name } });

  it('reads every page, then only what changed: adds, updates, deprecates and deletes (disabling its BUILT_IN servers)', async () => {
    const upstream = await startFixtureRegistry({ duplicates: true });
    try {
      const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00Z`;
      for (let i = 0; i < 23; i++) upstream.entries.push({ name: `io.github.sync/s${i}`, version: '1.0.0', description: `Server ${i}`, status: 'active', updatedAt: at(i) });
      upstream.entries.push({ name: 'io.github.sync/bad', version: 'latest', description: 'x'.repeat(150), status: 'active', updatedAt: at(30) });
      const res = await t.request('POST', '/api/v1/catalog/sources', { body: { baseUrl: upstream.url, intervalSeconds: 300 } });
      expect(res.status).toBe(201);
      const first = await waitFor('first sync', async () => ((await source(res.body.id)).lastOutcome ? source(res.body.id) : undefined));
      expect(first).toMatchObject({ lastOutcome: 'succeeded' });
      expect(first.lastReason).toMatch(/^5 pages, 23 added, 0 updated, 0 deleted, 1 refused by the schema, 5 duplicates dropped/);
      expect(upstream.requests.filter((q) => q.includes('updated_since'))).toEqual([]);
      expect(await t.runtime.prisma.catalogEntry.count({ where: { sourceId: res.body.id } })).toBe(23);

      // A BUILT_IN server made from s3, which upstream then deletes.
      const made = await t.request('POST', '/api/v1/servers', { body: { name: 'from-s3', transport: 'streamable-http', url: 'http://127.0.0.1:1/mcp', enabled: false, metadata: { 'catalog.name': 'io.github.sync/s3' } } });
      expect(made.status).toBe(201);
      await t.runtime.prisma.server.update({ where: { id: made.body.id }, data: { enabled: true } });

      upstream.entries.push({ name: 'io.github.sync/new', version: '1.0.0', description: 'Added later', status: 'active', updatedAt: at(40) });
      Object.assign(upstream.entries[1], { description: 'Changed', updatedAt: at(41) });
      Object.assign(upstream.entries[2], { status: 'deprecated', updatedAt: at(42) });
      Object.assign(upstream.entries[3], { status: 'deleted', updatedAt: at(43) });
      const sync = t.app.get(CatalogSyncService, { strict: false });
      const report = await sync.sync(res.body.id);
      expect(report).toMatchObject({ outcome: 'succeeded', added: 1, updated: 3, deleted: 1 });
      expect(upstream.requests.at(-1)).toContain(`updated_since=${encodeURIComponent('2026-11-20T10:30:00.000Z')}`);
      expect(await entry('io.github.sync/new')).toMatchObject({ status: 'active' });
      expect(((await entry('io.github.sync/s1'))!.serverJson as { description: string }).description).toBe('Changed');
      expect(await entry('io.github.sync/s2')).toMatchObject({ status: 'deprecated' });
      expect(await entry('io.github.sync/s3')).toMatchObject({ status: 'deleted', isLatest: false });
      const listed = await t.request('GET', '/api/v1/catalog?q=io.github.sync/s3');
      expect(listed.body.entries).toEqual([]);
      const server = await t.runtime.prisma.server.findUniqueOrThrow({ where: { id: made.body.id } });
      expect(server).toMatchObject({ enabled: false, statusReason: 'disabled: its catalog entry was deleted upstream' });
      const listedSource = await t.request('GET', '/api/v1/catalog/sources');
      expect(listedSource.body.sources[0]).toMatchObject({ id: res.body.id, lastOutcome: 'succeeded', updatedSince: '2026-11-20T10:43:00.000Z' });
      expect((await t.request('DELETE', `/api/v1/catalog/sources/${res.body.id}`)).status).toBe(204);
      expect(await t.runtime.prisma.catalogEntry.count({ where: { name: { startsWith: 'io.github.sync/' } } })).toBe(24);
    } finally {
      await upstream.close();
    }
  });

  it.each([
    ['hangs', { hang: true }, /^the source timed out after 300 ms$/],
    ['floods', { flood: true }, /^the source a page was larger than 65536 bytes$|larger than 65536 bytes/],
  ])('a source that %s ends failed with its reason and changes nothing', async (_what, mode, reason) => {
    const upstream = await startFixtureRegistry(mode);
    try {
      const row = await t.runtime.prisma.catalogSource.create({ data: { id: crypto.randomUUID(), baseUrl: upstream.url, intervalSeconds: 3600 } });
      const before = await t.runtime.prisma.catalogEntry.count();
      const report = await t.app.get(CatalogSyncService, { strict: false }).sync(row.id, { timeMs: 300, pageBytes: 65536 });
      expect(report?.outcome).toBe('failed');
      expect(report?.reason).toMatch(reason);
      expect(await source(row.id)).toMatchObject({ lastOutcome: 'failed', lastSuccessAt: null });
      expect(await t.runtime.prisma.catalogEntry.count()).toBe(before);
    } finally {
      await upstream.close();
    }
  });

  it('syncs a source again when the admin asks, beside its schedule, and audits it', async () => {
    const upstream = await startFixtureRegistry();
    try {
      upstream.entries.push({ name: 'io.github.sync-now/a', version: '1.0.0', description: 'First', status: 'active', updatedAt: '2026-11-21T10:00:00Z' });
      const res = await t.request('POST', '/api/v1/catalog/sources', { body: { baseUrl: upstream.url, intervalSeconds: 86400 } });
      expect(res.status).toBe(201);
      const first = await waitFor('first sync', async () => ((await source(res.body.id)).lastSyncAt ? source(res.body.id) : undefined));
      upstream.entries.push({ name: 'io.github.sync-now/b', version: '1.0.0', description: 'Second', status: 'active', updatedAt: '2026-11-21T11:00:00Z' });
      const now = await t.request('POST', `/api/v1/catalog/sources/${res.body.id}/sync`);
      expect(now.status).toBe(202);
      expect(now.body).toMatchObject({ id: res.body.id, lastOutcome: 'succeeded' });
      await waitFor('second sync', async () => ((await source(res.body.id)).lastSyncAt! > first.lastSyncAt! ? true : undefined));
      expect(await entry('io.github.sync-now/b')).toMatchObject({ status: 'active', sourceId: res.body.id });
      expect(upstream.requests.at(-1)).toContain('updated_since=');
      const audit = await t.request('GET', `/api/v1/audit?action=catalog-source.sync&resourceId=${res.body.id}`);
      expect(audit.body.events).toHaveLength(1);
      expect((await t.request('POST', `/api/v1/catalog/sources/${crypto.randomUUID()}/sync`)).status).toBe(404);
      const tenant = await makeTenant(t);
      expect((await t.request('POST', `/api/v1/catalog/sources/${res.body.id}/sync`, { key: tenant.key })).status).toBe(403);
      await t.request('DELETE', `/api/v1/catalog/sources/${res.body.id}`);
    } finally {
      await upstream.close();
    }
  });

  it('refuses a tenant, and a base URL the outbound address policy refuses', async () => {
    const tenant = await makeTenant(t);
    expect((await t.request('GET', '/api/v1/catalog/sources', { key: tenant.key })).status).toBe(403);
    const refused = await t.request('POST', '/api/v1/catalog/sources', { body: { baseUrl: 'http://10.0.0.1:8080' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('baseUrl');
  });
});
