import { DiscoveryStateRepository } from '@app/database';
import { DiscoveryProducer } from '@app/queue';
import { ORPHANED_RUN } from '@app/discovery';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fixture, slowToolsList, stdioFixture } from '../fixtures/hostile-servers';
import { MutableServer, startMutableServer } from '../fixtures/reference-servers';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { redisUrl } from '../support/database';
import { makeTenant, registerServer, runsOf, serverRow, settled, waitFor } from '../support/servers';

// The queue on Redis (production) and in PostgreSQL (the embedded default): the same behaviour on both.
const backends: ('redis' | 'postgres')[] = redisUrl() ? ['redis', 'postgres'] : ['postgres'];

/**
 * What changes over a server's life: its tools (seen by re-discovery, on request,
 * on a list_changed notification and on schedule), its registration, whether it
 * is enabled; and the guarantees that one server is discovered once at a time.
 */
describe.each(backends)('discovery over time (queue on %s)', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; key: string };
  const fixtures: Fixture[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      redis: backend === 'redis',
      env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '5000', DISCOVERY_ATTEMPTS: '2', DISCOVERY_INTERVAL_SECONDS: '3600' },
    });
    tenant = await makeTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(fixtures.map((f) => f.close()));
  });

  async function mutable(): Promise<MutableServer> {
    const server = await startMutableServer('Gives the weather forecast');
    fixtures.push(server);
    return server;
  }

  async function discoverNow(id: string, key: string = tenant.key): Promise<void> {
    const res = await t.request('POST', `/api/v1/servers/${id}/discover`, { key });
    expect(res.status).toBe(202);
  }

  it('shows in GET /servers/{id}/discoveries what changed between two discoveries of a server whose tool descriptions changed', async () => {
    const fixture = await mutable();
    expect(t.runtime.queue.kind).toBe(backend);
    const { id } = await registerServer(t, { name: 'weather', transport: 'streamable-http', url: fixture.url }, tenant.key);
    await settled(t, id);
    fixture.setDescription('Gives the weather forecast for the next 14 days');
    await discoverNow(id);
    await waitFor('the second discovery', async () => (await runsOf(t, id)).filter((r) => r.outcome === 'SUCCEEDED').length === 2);
    await settled(t, id);

    const res = await t.request('GET', `/api/v1/servers/${id}/discoveries`, { key: tenant.key });
    expect(res.status).toBe(200);
    const [second, first] = res.body.runs;
    // Asked for while the first job ended, the request may have been queued again by the worker once that job was gone.
    expect(['manual', 'recovered']).toContain(second.trigger);
    expect(second).toMatchObject({ outcome: 'SUCCEEDED', toolCount: 2, added: [], removed: [], changed: ['forecast'] });
    // Queued by the registration, or by the sweep a starting worker runs when it sees the server waiting first.
    expect(['registered', 'recovered']).toContain(first.trigger);
    expect(first).toMatchObject({ outcome: 'SUCCEEDED', toolCount: 2, added: ['forecast', 'stable'], removed: [], changed: [] });
    const tools = await t.request('GET', `/api/v1/servers/${id}/tools`, { key: tenant.key });
    expect(tools.body.tools.find((x: { name: string }) => x.name === 'forecast').description).toBe('Gives the weather forecast for the next 14 days');
  });

  it('re-discovers a server that announces tools/list_changed, once for a burst of notifications', async () => {
    const fixture = await mutable();
    const { id } = await registerServer(t, { name: 'weather-watched', transport: 'streamable-http', url: fixture.url }, tenant.key);
    await settled(t, id);
    // The watcher keeps the discovery's own session open, listening on its standalone stream: one session in all.
    await waitFor('the watch stream', async () => fixture.streams() === 1);
    expect(fixture.sessions()).toBe(1);
    expect(fixture.opened()).toBe(1);
    await new Promise((r) => setTimeout(r, 1200)); // past the watcher's settle window (1 s) for a fresh session
    fixture.setDescription('Forecast, take 2');
    fixture.setDescription('Forecast, take 3');
    fixture.setDescription('Forecast, take 4');
    const run = await waitFor('a list-changed discovery', async () => (await runsOf(t, id)).find((r) => r.trigger === 'list-changed' && r.outcome === 'SUCCEEDED'));
    expect(run).toMatchObject({ changed: ['forecast'], added: [], removed: [] });
    await settled(t, id);
    // Debounced: three notifications, one re-discovery.
    expect((await runsOf(t, id)).filter((r) => r.trigger === 'list-changed')).toHaveLength(1);
    const tool = await t.runtime.prisma.tool.findFirst({ where: { serverId: id, name: 'forecast' } });
    expect(tool?.description).toBe('Forecast, take 4');
  });

  it('watches a stdio server on the process its discovery started: no second process, and its list_changed re-discovers it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpr-changing-'));
    const starts = join(dir, 'starts');
    const description = join(dir, 'description');
    const started = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean).length : 0);
    const { id } = await registerServer(
      t,
      { name: 'gauge-watched', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('changing-server.cjs'), env: { STARTS_FILE: starts, DESCRIPTION_FILE: description } },
    );
    await settled(t, id);
    const watcher = t.app.get((await import('@app/discovery')).ToolChangeWatcher);
    await waitFor('the watch', async () => watcher.isWatching(id));
    await new Promise((r) => setTimeout(r, 1200)); // past the watcher's settle window (1 s)
    expect(started()).toBe(1);
    writeFileSync(description, 'Reads the gauge, in bars');
    const run = await waitFor('a list-changed discovery', async () => (await runsOf(t, id)).find((r) => r.trigger === 'list-changed' && r.outcome === 'SUCCEEDED'), 20_000);
    expect(run).toMatchObject({ changed: ['gauge'], added: [], removed: [] });
    // The re-discovery started a process of its own and closed it: the watch stays on the first one.
    expect(started()).toBe(2);
    expect(watcher.isWatching(id)).toBe(true);
    expect((await t.request('DELETE', `/api/v1/servers/${id}`)).status).toBe(204);
  });

  it('moves the watch when the registration changes, and closes it when the server is deleted', async () => {
    const first = await mutable();
    const second = await mutable();
    const { id } = await registerServer(t, { name: 'weather-moving', transport: 'streamable-http', url: first.url }, tenant.key);
    await settled(t, id);
    await waitFor('the watch on the first server', async () => first.sessions() === 1);
    expect((await t.request('PATCH', `/api/v1/servers/${id}`, { key: tenant.key, body: { url: second.url } })).status).toBe(200);
    await waitFor('the watch to move to the second server', async () => first.sessions() === 0 && second.sessions() === 1);
    expect((await t.request('DELETE', `/api/v1/servers/${id}`, { key: tenant.key })).status).toBe(204);
    await t.app.get((await import('@app/discovery')).DiscoveryScheduler).sweep();
    await waitFor('the watch to close', async () => second.sessions() === 0);
  });

  it('keeps one watch per server across workers: a later discovery by another worker takes the watch over', async () => {
    const fixture = await mutable();
    const { id } = await registerServer(t, { name: 'weather-handed-over', transport: 'streamable-http', url: fixture.url }, tenant.key);
    await settled(t, id);
    await waitFor('the watch session', async () => fixture.sessions() === 1);
    const watcher = t.app.get((await import('@app/discovery')).ToolChangeWatcher);
    // Its own re-discovery keeps this worker's watch.
    await discoverNow(id);
    await waitFor('the second discovery', async () => (await runsOf(t, id)).filter((r) => r.outcome === 'SUCCEEDED').length === 2);
    await watcher.handOver();
    expect(watcher.isWatching(id)).toBe(true);
    expect(fixture.sessions()).toBe(1);
    // Another worker discovered the server after this one (and watches it): this worker lets its watch go.
    await t.runtime.prisma.server.update({ where: { id }, data: { lastDiscoveredAt: new Date(Date.now() + 1000) } });
    await watcher.handOver();
    expect(watcher.isWatching(id)).toBe(false);
    await waitFor('the session to close', async () => fixture.sessions() === 0);
  });

  it('coalesces discoveries asked for while one is queued or running into that one', async () => {
    const fixture = await slowToolsList(1500, 'coalesced');
    fixtures.push(fixture);
    const { id } = await registerServer(t, { name: 'coalesced', transport: 'streamable-http', url: fixture.url }, tenant.key);
    await waitFor('the first discovery to run', async () => (await serverRow(t, id))?.discoveryLeaseOwner);
    const producer = t.app.get((await import('@app/queue')).DiscoveryProducer);
    await Promise.all(Array.from({ length: 5 }, () => producer.request(id, 'manual')));
    await settled(t, id);
    await new Promise((r) => setTimeout(r, 500));
    expect((await runsOf(t, id)).map((r) => r.outcome)).toEqual(['SUCCEEDED']);
  });

  it('does not lose a discovery asked for just as the previous one finished', async () => {
    // A stdio server takes a moment to stop after its result is recorded: the job is still finishing then.
    const { id } = await registerServer(t, { name: 'asked-again', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('paginated-server.cjs', '3', '2'), env: { LINGER: '1' } });
    await settled(t, id);
    // The result is recorded and the lease given back, and the job is still closing the lingering child (a second):
    // the queue joins this request to that job, and the worker queues it again once the job is gone.
    await discoverNow(id, t.adminKey);
    await waitFor('the second discovery', async () => (await runsOf(t, id)).filter((r) => r.outcome === 'SUCCEEDED').length === 2, 15_000);
    expect((await runsOf(t, id)).map((r) => r.trigger)).toEqual(['registered', 'recovered']);
    expect((await settled(t, id)).status).toBe('CONNECTED');
  });

  it('queues, as a worker stops, a discovery asked for while its last job was ending', async () => {
    const env = { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '5000', DISCOVERY_INTERVAL_SECONDS: '3600' };
    const api = await startTestApp({ redis: backend === 'redis', worker: false, env });
    const shared = { database: api.database, queuePrefix: api.queuePrefix, redis: backend === 'redis', env };
    let second: TestApp | undefined;
    try {
      const first = await startTestApp({ ...shared, worker: true });
      const { id } = await registerServer(api, { name: 'asked-as-it-stopped', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('paginated-server.cjs', '3', '2'), env: { LINGER: '1' } });
      await settled(api, id);
      // Joined to the job that is still closing the lingering child; the worker stops before that job has ended.
      expect((await api.request('POST', `/api/v1/servers/${id}/discover`)).status).toBe(202);
      await first.close();
      expect((await api.app.get(DiscoveryProducer).counts()).waiting).toBe(1);
      second = await startTestApp({ ...shared, worker: true });
      await waitFor('the discovery asked for', async () => (await runsOf(api, id)).filter((r) => r.outcome === 'SUCCEEDED').length === 2, 15_000);
      expect((await runsOf(api, id)).map((r) => r.trigger)).toEqual(['registered', 'recovered']);
    } finally {
      await second?.close();
      await api.close();
    }
  });

  it('finds in one look which of the servers whose jobs ended were asked for again since their discovery took them', async () => {
    const fixture = await mutable();
    const ids: string[] = [];
    for (const name of ['again-a', 'again-b', 'again-c']) ids.push((await registerServer(t, { name, transport: 'streamable-http', url: fixture.url }, tenant.key)).id);
    for (const id of ids) await settled(t, id);
    const state = t.app.get(DiscoveryStateRepository);
    const claims = await Promise.all(ids.map(async (id) => ({ serverId: id, since: (await runsOf(t, id))[0].startedAt })));
    expect(await state.askedAgainAmong(claims)).toEqual(new Set());
    // What the database holds when a request came after a job's result but before the queue removed the job.
    expect([...(await state.markRequestedMany([ids[0]])).keys()]).toEqual([ids[0]]);
    expect([...(await state.markRequestedMany([ids[2]])).keys()]).toEqual([ids[2]]);
    expect(await state.askedAgainAmong(claims)).toEqual(new Set([ids[0], ids[2]]));
    // A request older than the discovery that took the server was that discovery's own.
    expect(await state.askedAgainAmong([{ serverId: ids[0], since: new Date(Date.now() + 60_000) }])).toEqual(new Set());
    expect(await state.askedAgainAmong([])).toEqual(new Set());
    await Promise.all([ids[0], ids[2]].map((id) => discoverNow(id)));
    for (const id of ids) expect((await settled(t, id)).status).toBe('CONNECTED');
  });

  it('lets one worker hold a server at a time: a second claim is refused until the lease is given back', async () => {
    const fixture = await slowToolsList(10, 'leased');
    fixtures.push(fixture);
    const { id } = await registerServer(t, { name: 'leased', transport: 'streamable-http', url: fixture.url }, tenant.key);
    await settled(t, id);
    const state = t.app.get(DiscoveryStateRepository);
    const claims = await Promise.all(
      ['worker-a', 'worker-b', 'worker-c'].map((w) => state.claim(id, w, 3000, { trigger: 'manual', attempt: 1, orphanedRun: ORPHANED_RUN })),
    );
    expect(claims.map((c) => c.status).sort()).toEqual(['busy', 'busy', 'claimed']);
    // A discovery asked for meanwhile waits for the lease (held by a "worker" that never finishes) to expire.
    await discoverNow(id);
    const row = await settled(t, id, 20_000);
    expect(row.status).toBe('CONNECTED');
    // The held claim opened a run; the discovery that took the expired lease closed it as its worker's, stopped.
    const [, held, next] = await runsOf(t, id);
    const holder = claims.find((c) => c.status === 'claimed');
    expect(holder).toMatchObject({ status: 'claimed', runId: held.id });
    expect(held).toMatchObject({ outcome: 'FAILED', error: ORPHANED_RUN });
    expect(next).toMatchObject({ outcome: 'SUCCEEDED' });
    expect(next.startedAt.getTime()).toBeGreaterThan(Date.now() - 20_000);
  });

  it('runs again at once a discovery whose server was changed while it ran, and records the first as cancelled', async () => {
    const slow = await slowToolsList(1500, 'before-change');
    const fast = await startRawServer({ name: 'after-change', onToolsList: () => ({ result: { tools: [sampleTool('after_tool')] } }) });
    fixtures.push(slow, fast);
    const { id } = await registerServer(t, { name: 'moving', transport: 'streamable-http', url: slow.url }, tenant.key);
    await waitFor('the first discovery to run', async () => (await serverRow(t, id))?.discoveryLeaseOwner);
    const patch = await t.request('PATCH', `/api/v1/servers/${id}`, { key: tenant.key, body: { url: fast.url } });
    expect(patch.status).toBe(200);
    const row = await settled(t, id);
    expect(row).toMatchObject({ status: 'CONNECTED', serverName: 'after-change', toolCount: 1 });
    const runs = await runsOf(t, id);
    expect(runs[0]).toMatchObject({ outcome: 'CANCELLED', error: 'a newer discovery was asked for during this one' });
    // The change joined the running job: the run it caused says so.
    expect(runs[runs.length - 1]).toMatchObject({ outcome: 'SUCCEEDED', added: ['after_tool'], trigger: 'updated' });
  });

  it('leaves a disabled server DISCONNECTED, and discovers it again when enabled', async () => {
    const fixture = await slowToolsList(10, 'toggled');
    fixtures.push(fixture);
    const { id } = await registerServer(t, { name: 'toggled', transport: 'streamable-http', url: fixture.url }, tenant.key);
    await settled(t, id);
    expect((await t.request('PATCH', `/api/v1/servers/${id}`, { key: tenant.key, body: { enabled: false } })).status).toBe(200);
    expect((await serverRow(t, id))?.status).toBe('DISCONNECTED');
    // A job for a disabled server (queued before it was disabled) does not bring it back.
    await t.app.get((await import('@app/queue')).DiscoveryProducer).request(id, 'scheduled');
    await new Promise((r) => setTimeout(r, 500));
    expect(await serverRow(t, id)).toMatchObject({ status: 'DISCONNECTED', nextDiscoveryAt: null });
    expect((await t.request('PATCH', `/api/v1/servers/${id}`, { key: tenant.key, body: { enabled: true } })).status).toBe(200);
    expect((await settled(t, id)).status).toBe('CONNECTED');
  });

  it('does not keep ERROR: a server that was failing is CONNECTED at its next discovery once it works', async () => {
    let broken = true;
    const fixture: RawServer = await startRawServer({
      name: 'flaky',
      onHttp: (_req, res) => {
        if (!broken) return false;
        res.writeHead(403).end();
        return true;
      },
      onToolsList: () => ({ result: { tools: [sampleTool('recovered')] } }),
    });
    fixtures.push(fixture);
    const { id } = await registerServer(t, { name: 'flaky', transport: 'streamable-http', url: fixture.url }, tenant.key);
    expect(await settled(t, id)).toMatchObject({ status: 'ERROR', statusReason: expect.stringContaining('403 Forbidden') });
    broken = false;
    // Due now: the sweep that runs on schedule picks it up.
    await t.runtime.prisma.serverDiscovery.update({ where: { serverId: id }, data: { nextAt: new Date(Date.now() - 1000) } });
    await t.app.get((await import('@app/discovery')).DiscoveryScheduler).sweep();
    await waitFor('the scheduled re-discovery', async () => (await serverRow(t, id))?.status === 'CONNECTED');
    const runs = await runsOf(t, id);
    expect(runs.map((r) => [r.trigger, r.outcome])).toEqual([
      ['registered', 'FAILED'],
      ['scheduled', 'SUCCEEDED'],
    ]);
  });
});
