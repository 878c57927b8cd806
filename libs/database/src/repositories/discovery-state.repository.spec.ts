import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '../../../../test/support/app';
import { registerServer, serverRow } from '../../../../test/support/servers';
import { ChangeFeedRepository } from './change-feed.repository';
import { DiscoveryStateRepository, DiscoverySuccess, OpenRun } from './discovery-state.repository';
import { ServerRepository } from './server.repository';
import { DiscoveredListings } from './server-listing.repository';
import { StoredTool } from './tool.repository';

/**
 * The discovery worker's side of the servers, read off the repository itself on the real database: the lease, the
 * result gate, the record of a result, and the sweeps. No worker runs in this process: each claim here is the only one.
 */
describe('DiscoveryStateRepository', () => {
  let t: TestApp;
  let state: DiscoveryStateRepository;
  const OPEN: OpenRun = { trigger: 'manual', attempt: 1, orphanedRun: 'the worker stopped' };
  const tool = (name: string, hash = `${name}-1`): StoredTool => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object' }, hash });
  const success = (runId: string, tools: StoredTool[], extra: Partial<DiscoverySuccess> = {}): DiscoverySuccess => ({
    runId,
    identity: { serverName: 'spec', serverTitle: null, serverVersion: '1.0.0', protocolVersion: '2025-06-18', instructions: null, capabilities: { tools: {} }, resourceCount: null, promptCount: null },
    tools,
    dropped: [],
    durationMs: 5,
    stderr: null,
    nextDiscoveryAt: new Date(Date.now() + 3_600_000),
    toolsHash: tools.map((x) => x.hash).join(','),
    ...extra,
  });
  const register = async (name: string, extra: Record<string, unknown> = {}) =>
    (await registerServer(t, { name, kind: 'BUILT_IN', transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp', ...extra })).id;
  const claim = async (id: string, owner = 'worker-a', leaseMs = 60_000) => {
    const c = await state.claim(id, owner, leaseMs, OPEN);
    if (c.status !== 'claimed') throw new Error(`not claimed: ${c.status}`);
    return c;
  };
  const discovered = async (id: string, tools: StoredTool[], extra: Partial<DiscoverySuccess> = {}) => {
    const c = await claim(id);
    return state.succeed(id, 'worker-a', c.claimedAt, success(c.runId, tools, extra));
  };
  const toolIds = async (id: string) =>
    Object.fromEntries((await t.runtime.prisma.tool.findMany({ where: { serverId: id }, select: { name: true, id: true } })).map((r) => [r.name, r.id]));
  const runs = (id: string) => t.runtime.prisma.discoveryRun.findMany({ where: { serverId: id }, orderBy: { startedAt: 'asc' } });

  beforeAll(async () => {
    t = await startTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    state = t.app.get(DiscoveryStateRepository);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('claim', () => {
    it('takes the lease of an enabled server nobody holds, opens the run and shows the server DISCOVERING', async () => {
      const id = await register('claimed');
      const c = await claim(id);
      expect(c.subject.server).toMatchObject({ id, status: 'DISCOVERING' });
      expect(c.claimedAt).toBeInstanceOf(Date);
      expect(await serverRow(t, id)).toMatchObject({ status: 'DISCOVERING', discoveryLeaseOwner: 'worker-a', discoveryRequestedAt: expect.any(Date) });
      expect(await runs(id)).toEqual([expect.objectContaining({ id: c.runId, outcome: 'RUNNING', trigger: 'manual', attempt: 1 })]);
    });

    it("answers busy, with the holder's lease end, while another worker holds the lease; the holder may claim again", async () => {
      const id = await register('busy');
      await claim(id, 'worker-a');
      const other = await state.claim(id, 'worker-b', 60_000, OPEN);
      expect(other.status).toBe('busy');
      expect(other.status === 'busy' && other.leaseUntil.getTime()).toBeGreaterThan(Date.now() + 30_000);
      expect((await state.claim(id, 'worker-a', 60_000, OPEN)).status).toBe('claimed');
    });

    it('answers disabled for a disabled server and gone for one that does not exist (or is no id)', async () => {
      const id = await register('disabled', { enabled: false });
      expect(await state.claim(id, 'worker-a', 60_000, OPEN)).toEqual({ status: 'disabled' });
      expect((await serverRow(t, id))!.discoveryLeaseOwner).toBeNull();
      expect(await state.claim(randomUUID(), 'worker-a', 60_000, OPEN)).toEqual({ status: 'gone' });
      expect(await state.claim('not-an-id', 'worker-a', 60_000, OPEN)).toEqual({ status: 'gone' });
    });
  });

  it('lets the sweep take back a lease that ran out, once, and another worker claim the server then', async () => {
    const id = await register('expired');
    const c = await claim(id, 'killed-worker', 1);
    await new Promise((r) => setTimeout(r, 20));
    const expired = await state.listExpiredLeases(1000);
    expect(expired).toContainEqual({ id, discoveryRequestedAt: expect.any(Date), leaseOwner: 'killed-worker' });
    expect(await state.reclaimExpiredLease(id, 'killed-worker')).toBe(true);
    expect(await state.reclaimExpiredLease(id, 'killed-worker')).toBe(false);
    expect((await state.listExpiredLeases(1000)).map((x) => x.id)).not.toContain(id);
    // The killed worker's result is not taken: it holds no lease any more.
    expect(await state.succeed(id, 'killed-worker', c.claimedAt, success(c.runId, [tool('late')]))).toEqual({ status: 'lost' });
    expect((await state.claim(id, 'worker-b', 60_000, OPEN)).status).toBe('claimed');
  });

  it('does not record a result when a discovery was asked for after the claim: the run is cancelled and the lease given back', async () => {
    const id = await register('superseded');
    const c = await claim(id);
    // A millisecond later at least: the database's clock is kept to milliseconds.
    await new Promise((r) => setTimeout(r, 5));
    expect((await state.markRequestedMany([id])).has(id)).toBe(true);
    expect(await state.succeed(id, 'worker-a', c.claimedAt, success(c.runId, [tool('stale')]))).toEqual({ status: 'superseded' });
    expect(await toolIds(id)).toEqual({});
    expect(await serverRow(t, id)).toMatchObject({ status: 'DISCOVERING', statusReason: 'discovery queued', discoveryLeaseOwner: null, lastDiscoveredAt: null });
    expect((await runs(id)).map((r) => [r.outcome, r.error])).toEqual([['CANCELLED', 'a newer discovery was asked for during this one']]);
    // The request it lost to takes the server next.
    expect((await state.claim(id, 'worker-b', 60_000, OPEN)).status).toBe('claimed');
  });

  it('keeps the ids of the tools found again, and says what was added, removed and changed', async () => {
    const id = await register('stable-ids');
    expect(await discovered(id, [tool('alpha'), tool('beta'), tool('gamma')])).toMatchObject({ status: 'recorded', changes: { added: ['alpha', 'beta', 'gamma'], removed: [], changed: [] } });
    const first = await toolIds(id);
    const again = await discovered(id, [tool('beta', 'beta-2'), tool('alpha'), tool('delta')]);
    expect(again).toMatchObject({ status: 'recorded', changes: { added: ['delta'], removed: ['gamma'], changed: ['beta'] } });
    const second = await toolIds(id);
    expect([second.alpha, second.beta]).toEqual([first.alpha, first.beta]);
    expect(Object.keys(second).sort()).toEqual(['alpha', 'beta', 'delta']);
    const row = await serverRow(t, id);
    expect(row).toMatchObject({ status: 'CONNECTED', statusReason: null, toolCount: 3, discoveryLeaseOwner: null, discoveryRequestedAt: null, nextDiscoveryAt: expect.any(Date) });
  });

  it('writes the server row once per result, and a discovery that found everything as it was writes no tool or listing row', async () => {
    const id = await register('unchanged');
    const listings: DiscoveredListings = {
      resources: [{ key: 'file:///a', definition: { uri: 'file:///a', name: 'a' } }, { key: 'file:///b', definition: { uri: 'file:///b', name: 'b' } }],
      resourceTemplates: null,
      prompts: [{ key: 'greet', definition: { name: 'greet' } }],
      errors: { 'resources/templates/list': 'refused' },
    };
    const identity = { ...success('', []).identity, capabilities: { tools: {}, resources: {}, prompts: {} }, resourceCount: 2, promptCount: 1 };
    await discovered(id, [tool('alpha')], { identity, listings });
    const written = async () => ({
      tools: (await t.runtime.sql.query<{ x: string }>(`SELECT xmin::text AS x FROM tools WHERE server_id = $1 ORDER BY name`, [id])).map((r) => r.x),
      listings: (await t.runtime.sql.query<{ x: string }>(`SELECT xmin::text AS x FROM server_listings WHERE server_id = $1 ORDER BY kind, position`, [id])).map((r) => r.x),
    });
    const before = await written();
    expect(before.listings).toHaveLength(3);
    const log = t.app.get(ChangeFeedRepository);
    const c = await claim(id);
    const xmin = await log.currentXmin();
    const seen = new Set((await log.changesSince(xmin)).changes.map((x) => x.id));
    await state.succeed(id, 'worker-a', c.claimedAt, success(c.runId, [tool('alpha')], { identity, listings }));
    expect(await written()).toEqual(before);
    // One write of the server row (a change of the server: CONNECTED again, discovered now) and one of its
    // discovery row (bookkeeping: the schedule, the lease given back).
    const changes = (await log.changesSince(xmin)).changes.filter((x) => x.serverId === id && !seen.has(x.id)).map((x) => x.bookkeeping);
    expect(changes.sort()).toEqual([false, true]);
    expect(await serverRow(t, id)).toMatchObject({ resourceCount: 2, resourceTemplateCount: null, promptCount: 1, listingErrors: { 'resources/templates/list': 'refused' } });

    // A list that changed: only what changed is written (a resource moved, one changed, one prompt gone).
    const moved: DiscoveredListings = {
      ...listings,
      resources: [{ key: 'file:///c', definition: { uri: 'file:///c', name: 'c' } }, { key: 'file:///a', definition: { uri: 'file:///a', name: 'a' } }],
      prompts: [],
      errors: null,
    };
    await discovered(id, [tool('alpha')], { identity: { ...identity, promptCount: 0 }, listings: moved });
    const stored = await t.runtime.sql.query<{ kind: string; position: number; key: string }>(
      `SELECT kind, position, key FROM server_listings WHERE server_id = $1 ORDER BY kind, position`,
      [id],
    );
    expect(stored).toEqual([
      { kind: 'resource', position: 0, key: 'file:///c' },
      { kind: 'resource', position: 1, key: 'file:///a' },
    ]);
    expect(await serverRow(t, id)).toMatchObject({ resourceCount: 2, promptCount: 0, listingErrors: null });
  });

  it('keeps a retried attempt\'s reason on the discovery row (the server row untouched), and puts the last one\'s on the server as ERROR', async () => {
    const id = await register('retried');
    const servers = t.app.get(ServerRepository);
    const before = (await serverRow(t, id))!;
    let c = await claim(id);
    const retry = 'attempt 1 of 2 failed: the connection was refused; trying again';
    expect(await state.fail(id, 'worker-a', c.claimedAt, { runId: c.runId, reason: retry, durationMs: 3, stderr: null, final: false, nextDiscoveryAt: null })).toMatchObject({ status: 'recorded' });
    const retrying = (await serverRow(t, id))!;
    expect(retrying).toMatchObject({ status: 'DISCOVERING', statusReason: 'discovery queued', retryReason: retry, discoveryLeaseOwner: null, updatedAt: before.updatedAt });
    expect((await servers.findById(id, { type: 'admin' }))!.statusReason).toBe(retry);

    c = await claim(id);
    const next = new Date(Date.now() + 600_000);
    await state.fail(id, 'worker-a', c.claimedAt, { runId: c.runId, reason: 'the connection was refused', durationMs: 3, stderr: null, final: true, nextDiscoveryAt: next });
    expect(await serverRow(t, id)).toMatchObject({ status: 'ERROR', statusReason: 'the connection was refused', retryReason: null, nextDiscoveryAt: next, discoveryRequestedAt: null });
    expect((await servers.findById(id, { type: 'admin' }))!.statusReason).toBe('the connection was refused');
  });

  it('schedules: takes the enabled servers whose discovery is due, not those due later, held or already DISCOVERING', async () => {
    const due = await register('due');
    const later = await register('later');
    const waiting = await register('waiting');
    const held = await register('held');
    for (const id of [due, later, held]) await discovered(id, [tool('alpha')]);
    const setNext = (id: string, inMs: number) => t.runtime.prisma.serverDiscovery.update({ where: { serverId: id }, data: { nextAt: new Date(Date.now() + inMs) } });
    await setNext(due, -1000);
    await setNext(later, 3_600_000);
    await setNext(held, -1000);
    await claim(held, 'worker-b');
    await t.runtime.prisma.server.update({ where: { id: held }, data: { status: 'CONNECTED' } });
    const taken = await state.takeDue(1000);
    expect(taken).toContain(due);
    expect(taken).not.toContain(later);
    expect(taken).not.toContain(waiting);
    expect(taken).not.toContain(held);
    expect(await serverRow(t, due)).toMatchObject({ status: 'DISCOVERING', discoveryRequestedAt: expect.any(Date) });
    expect((await serverRow(t, later))!.status).toBe('CONNECTED');
    // Taken once: a second sweep finds it DISCOVERING.
    expect(await state.takeDue(1000)).not.toContain(due);
  });
});
