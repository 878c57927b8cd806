import { DiscoveryProducer, QueueName } from '@app/queue';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PlatformServersService } from '../../apps/api/src/servers/platform-servers.service';
import { startTestApp } from '../support/app';
import { tempDir, useStand } from '../support/stand';
import { expectProblem, makeTenant } from '../support/tenants';

const EXTERNAL_REFUSAL = 'this category does not designate a new tenant registration';

describe('platform servers registered at start: EXTERNAL from the file, INTERNAL from code', () => {
  const legacyToken = `legacy-token-${Math.random().toString(36).slice(2)}`;
  const s = useStand(async (keep) => {
    const file = join(tempDir(keep, 'mcpr-external-'), 'external.json');
    write(
      [
        { name: 'legacy-http', transport: 'streamable-http', url: 'https://legacy.example.com/mcp', credentials: { bearerToken: legacyToken }, metadata: { owner: 'ops' }, toolPolicy: 'pinned' },
        { name: 'legacy-stdio', transport: 'stdio', command: 'node', args: ['legacy.js'], credentials: { env: 'MCP_SECRET_LEGACY_TOKEN' } },
        { name: 'legacy-off', transport: 'sse', url: 'https://off.example.com/sse', enabled: false },
      ],
      file,
    );
    const t = keep(await startTestApp({ worker: false, env: { EXTERNAL_SERVERS_FILE: file } }));
    // Checked before the app closes: the token never reached the log.
    keep(t, (app) => expect(app.logs()).not.toContain(legacyToken));
    return { t, file, a: await makeTenant(t) };
  });

  const write = (entries: unknown[], file = s.file) => writeFileSync(file, JSON.stringify(entries));
  const byName = async (key?: string) => {
    const res = await s.t.request('GET', '/api/v1/servers?pageSize=100', { key });
    return new Map<string, Record<string, any>>(res.body.servers.map((s: { name: string }) => [s.name, s]));
  };

  it('loads the file at start as EXTERNAL platform servers, visible to tenants, discovery queued', async () => {
    const servers = await byName(s.a.key);
    expect(servers.get('legacy-http')).toMatchObject({
      kind: 'MCP_SERVER_KIND_EXTERNAL',
      tenantId: null,
      transport: 'streamable-http',
      hasCredentials: true,
      metadata: { owner: 'ops' },
      toolPolicy: 'pinned',
      status: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING',
    });
    expect(servers.get('legacy-off')!.toolPolicy).toBe('open');
    expect(servers.get('legacy-stdio')).toMatchObject({ kind: 'MCP_SERVER_KIND_EXTERNAL', transport: 'stdio', hasCredentials: true });
    expect(servers.get('legacy-off')).toMatchObject({ enabled: false, status: 'MCP_SERVER_CONNECTION_STATUS_DISCONNECTED' });
    const queue = s.t.runtime.queue.createQueue(QueueName.Discovery);
    expect((await queue.getJob(DiscoveryProducer.jobId(servers.get('legacy-http')!.id)))?.data.trigger).toBe('startup');
    expect(await queue.getJob(DiscoveryProducer.jobId(servers.get('legacy-off')!.id))).toBeUndefined();
    const row = await s.t.runtime.prisma.server.findUniqueOrThrow({ where: { id: servers.get('legacy-http')!.id } });
    expect(row.credentialsCipher).not.toContain(legacyToken);
    const audit = await s.t.request('GET', `/api/v1/audit?resourceId=${servers.get('legacy-http')!.id}`);
    expect(audit.body.events[0]).toMatchObject({ action: 'server.create', actorType: 'system', actorId: 'EXTERNAL_SERVERS_FILE' });
  });

  it('keeps EXTERNAL servers read-only through the API, for the admin too', async () => {
    const id = (await byName()).get('legacy-http')!.id;
    for (const key of [undefined, s.a.key]) {
      const patch = await s.t.request('PATCH', `/api/v1/servers/${id}`, { key, body: { metadata: {} } });
      expectProblem(patch, 403);
      expect(patch.body.detail).toContain(EXTERNAL_REFUSAL);
      const del = await s.t.request('DELETE', `/api/v1/servers/${id}`, { key });
      expectProblem(del, 403);
      expect(del.body.detail).toContain(EXTERNAL_REFUSAL);
    }
    expect((await s.t.request('GET', `/api/v1/servers/${id}`, { key: s.a.key })).status).toBe(200);
  });

  it('brings the servers in line with the file on the next start: changed, added, removed', async () => {
    const before = await byName();
    write([
      { name: 'legacy-http', transport: 'streamable-http', url: 'https://legacy-v2.example.com/mcp', credentials: { bearerToken: legacyToken }, metadata: { owner: 'ops' }, toolPolicy: 'approval' },
      { name: 'legacy-off', transport: 'sse', url: 'https://off.example.com/sse', enabled: false },
      { name: 'legacy-new', transport: 'sse', url: 'https://new.example.com/sse' },
    ]);
    const next = await startTestApp({ worker: false, database: s.t.database, queuePrefix: s.t.queuePrefix, env: { EXTERNAL_SERVERS_FILE: s.file } });
    await next.close();
    const after = await byName();
    expect(after.get('legacy-http')).toMatchObject({ id: before.get('legacy-http')!.id, url: 'https://legacy-v2.example.com/mcp', hasCredentials: true, toolPolicy: 'approval' });
    expect(after.has('legacy-stdio')).toBe(false);
    expect(after.get('legacy-new')).toMatchObject({ kind: 'MCP_SERVER_KIND_EXTERNAL' });
    expect(after.get('legacy-off')!.updatedAt).toBe(before.get('legacy-off')!.updatedAt);
    const removed = await s.t.request('GET', `/api/v1/audit?resourceId=${before.get('legacy-stdio')!.id}`);
    expect(removed.body.events.map((e: { action: string }) => e.action)).toEqual(['server.delete', 'server.create']);
  });

  it('registers INTERNAL servers from the in-process definitions, read-only through the API, and removes stale ones', async () => {
    const platform = s.t.app.get(PlatformServersService);
    await platform.syncInternal({ list: () => [{ name: 'test-internal' }, { name: 'other-internal' }] });
    const servers = await byName(s.a.key);
    const internal = servers.get('test-internal')!;
    expect(internal).toMatchObject({ kind: 'MCP_SERVER_KIND_INTERNAL', transport: 'in-process', tenantId: null, url: null });
    for (const [method, body] of [['PATCH', { enabled: false }], ['DELETE', undefined]] as const) {
      const res = await s.t.request(method, `/api/v1/servers/${internal.id}`, { body });
      expectProblem(res, 403);
      expect(res.body.detail).toContain('compiled into the deployment');
    }
    await platform.syncInternal({ list: () => [{ name: 'test-internal' }] });
    const again = await byName();
    expect(again.get('test-internal')!.id).toBe(internal.id);
    expect(again.has('other-internal')).toBe(false);
  });
});
