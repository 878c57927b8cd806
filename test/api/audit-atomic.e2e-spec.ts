import { CatalogEntryRepository } from '@app/database';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PlatformServersService } from '../../apps/api/src/servers/platform-servers.service';
import { PipedreamStandIn, startPipedreamStandIn } from '../fixtures/pipedream-stand-in';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, TenantKey } from '../support/tenants';

/**
 * Every change and its audit record: both or neither. The database is made to refuse one of the two (a trigger that
 * raises, in the same transaction), and the other is then not there either.
 */
describe('changes and their audit records are written together or not at all', () => {
  let t: TestApp;
  let pd: PipedreamStandIn;
  let a: TenantKey;
  let db: Client;
  let dir: string;
  let file: string;
  const write = (entries: unknown[]) => writeFileSync(file, JSON.stringify(entries));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpr-audit-'));
    file = join(dir, 'external.json');
    write([{ name: 'legacy-audited', transport: 'sse', url: 'https://legacy.example.com/sse', metadata: { v: '1' } }]);
    pd = await startPipedreamStandIn({ clientId: 'pd-client', clientSecret: 'pd-secret', projectId: 'proj_test', environment: 'development' });
    t = await startTestApp({ worker: false, env: { ...pd.env, EXTERNAL_SERVERS_FILE: file, MCP_OUTBOUND_ALLOW: '*.example.com' } });
    a = await makeTenant(t);
    db = new Client({ connectionString: t.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
    await pd?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await db.query('DROP TRIGGER IF EXISTS refuse_audit ON audit_events');
    await db.query('DROP TRIGGER IF EXISTS refuse_change ON servers');
    await db.query('DROP TRIGGER IF EXISTS refuse_change ON server_discovery');
  });

  /** The database refuses audit records of this action from now on (until the test ends). */
  async function refuseAudit(action: string): Promise<void> {
    await db.query(`CREATE OR REPLACE FUNCTION refuse_for_test() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await db.query(`CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.action = '${action}') EXECUTE FUNCTION refuse_for_test()`);
  }

  /** The database refuses any change to this server's row and its discovery row from now on (until the test ends). */
  async function refuseChange(serverId: string): Promise<void> {
    await db.query(`CREATE OR REPLACE FUNCTION refuse_for_test() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused for the test'; END $$`);
    await db.query(`CREATE TRIGGER refuse_change BEFORE UPDATE OR DELETE ON servers FOR EACH ROW WHEN (OLD.id = '${serverId}') EXECUTE FUNCTION refuse_for_test()`);
    await db.query(`CREATE TRIGGER refuse_change BEFORE UPDATE OR DELETE ON server_discovery FOR EACH ROW WHEN (OLD.server_id = '${serverId}') EXECUTE FUNCTION refuse_for_test()`);
  }

  const audited = async (resourceId: string, action: string) =>
    (await db.query(`SELECT count(*)::int AS n FROM audit_events WHERE resource_id = $1 AND action = $2`, [resourceId, action])).rows[0].n as number;
  const row = async (id: string) =>
    (await db.query(`SELECT s.name, s.metadata, s.enabled, d.requested_at FROM servers s JOIN server_discovery d ON d.server_id = s.id WHERE s.id = $1`, [id])).rows[0];
  const register = async (name: string) =>
    (await t.request('POST', '/api/v1/servers', { key: a.key, body: { name, transport: 'sse', url: `https://${name}.example.com/sse` } })).body.id as string;

  it('update: no change without its record', async () => {
    const id = await register('audited-update');
    await refuseAudit('server.update');
    const res = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { name: 'renamed', metadata: { changed: 'yes' } } });
    expect(res.status).toBe(500);
    expect(await row(id)).toMatchObject({ name: 'audited-update', metadata: {} });
    expect(await audited(id, 'server.update')).toBe(0);
  });

  it('delete: no deletion without its record', async () => {
    const id = await register('audited-delete');
    await refuseAudit('server.delete');
    expect((await t.request('DELETE', `/api/v1/servers/${id}`, { key: a.key })).status).toBe(500);
    expect(await row(id)).toMatchObject({ name: 'audited-delete' });
    expect(await audited(id, 'server.delete')).toBe(0);
  });

  it('discover: no request without its record, and no record without the request', async () => {
    const id = await register('audited-discover');
    const before = (await row(id)).requested_at as Date;
    await refuseAudit('server.discover');
    expect((await t.request('POST', `/api/v1/servers/${id}/discover`, { key: a.key })).status).toBe(500);
    expect((await row(id)).requested_at).toEqual(before);
    await db.query('DROP TRIGGER refuse_audit ON audit_events');

    await refuseChange(id);
    expect((await t.request('POST', `/api/v1/servers/${id}/discover`, { key: a.key })).status).toBe(500);
    expect(await audited(id, 'server.discover')).toBe(0);
    await db.query('DROP TRIGGER refuse_change ON servers');
    await db.query('DROP TRIGGER refuse_change ON server_discovery');
    // Both allowed: both written.
    expect((await t.request('POST', `/api/v1/servers/${id}/discover`, { key: a.key })).status).toBe(202);
    expect(await audited(id, 'server.discover')).toBe(1);
  });

  it('integrations: no server without its record', async () => {
    await refuseAudit('integration.create');
    const res = await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack', accountId: 'apn_audit', name: 'audited-integration' } });
    expect(res.status).toBe(500);
    expect((await db.query(`SELECT count(*)::int AS n FROM servers WHERE name = 'audited-integration'`)).rows[0].n).toBe(0);
  });

  it('the platform sync: no change and no removal without its record', async () => {
    const sync = t.app.get(PlatformServersService);
    const { id } = (await db.query(`SELECT id FROM servers WHERE name = 'legacy-audited' AND tenant_id IS NULL`)).rows[0];
    write([{ name: 'legacy-audited', transport: 'sse', url: 'https://legacy.example.com/sse', metadata: { v: '2' } }]);
    await refuseAudit('server.update');
    await expect(sync.syncExternal()).rejects.toThrow();
    expect((await row(id)).metadata).toEqual({ v: '1' });
    await db.query('DROP TRIGGER refuse_audit ON audit_events');

    write([]);
    await refuseAudit('server.delete');
    await expect(sync.syncExternal()).rejects.toThrow();
    expect(await row(id)).toBeDefined();
    expect(await audited(id, 'server.delete')).toBe(0);
  });

  it("the catalog's disabling of a deleted entry's servers: no server disabled without its record", async () => {
    const made = await t.request('POST', '/api/v1/servers', {
      body: { name: 'from-a-deleted-entry', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'sse', url: 'https://entry.example.com/sse', metadata: { 'catalog.name': 'io.example/deleted' } },
    });
    expect(made.status).toBe(201);
    const entries = t.app.get(CatalogEntryRepository);
    const record = (server: { id: string; name: string }) => ({
      actorType: 'system' as const, actorId: 'catalog source test', tenantId: null, action: 'server.update', resourceType: 'server', resourceId: server.id, detail: { name: server.name },
    });
    await refuseAudit('server.update');
    await expect(entries.disableBuiltInServersOf(['io.example/deleted'], 'catalog.name', 'deleted upstream', record)).rejects.toThrow();
    expect((await row(made.body.id)).enabled).toBe(true);
    await db.query('DROP TRIGGER refuse_audit ON audit_events');
    expect(await entries.disableBuiltInServersOf(['io.example/deleted'], 'catalog.name', 'deleted upstream', record)).toEqual([made.body.id]);
    expect((await row(made.body.id)).enabled).toBe(false);
    expect(await audited(made.body.id, 'server.update')).toBe(1);
  });
});
