import { DiscoveryProducer } from '@app/queue';
import { randomUUID } from 'node:crypto';
import { slowToolsList } from '../../../test/fixtures/hostile-servers';
import { RawServer, sampleTool, startRawServer } from '../../../test/fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../../../test/support/app';
import { registerServer, runsOf, serverRow, settled, waitFor } from '../../../test/support/servers';

/**
 * The discovery processor's rules, on the real queue, database and MCP servers over Streamable HTTP: what it does
 * with each outcome of an attempt (done; tried again, then ERROR with the reason; run again at once when a newer
 * discovery was asked for while it ran; nothing for a server that is gone).
 */
describe('DiscoveryProcessor', () => {
  let t: TestApp;
  const fixtures: RawServer[] = [];
  const register = async (name: string, url: string) => (await registerServer(t, { name, kind: 'BUILT_IN', transport: 'streamable-http', url })).id;
  /** The log lines about one server that say `message`. */
  const logged = (serverId: string, message: string) =>
    t
      .logs()
      .split('\n')
      .filter((l) => l.includes(serverId) && l.includes(message));

  beforeAll(async () => {
    t = await startTestApp({ worker: true, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '5000', DISCOVERY_ATTEMPTS: '2' } });
  });
  afterAll(async () => {
    await t?.close();
    for (const f of fixtures) await f.close();
  });

  it('records a success: CONNECTED with the tools, one run, the job done', async () => {
    const fixture = await startRawServer({ name: 'working', onToolsList: () => ({ result: { tools: [sampleTool('lookup')] } }) });
    fixtures.push(fixture);
    const id = await register('working', fixture.url);
    expect(await settled(t, id)).toMatchObject({ status: 'CONNECTED', statusReason: null, toolCount: 1, nextDiscoveryAt: expect.any(Date) });
    expect((await runsOf(t, id)).map((r) => [r.trigger, r.attempt, r.outcome])).toEqual([['registered', 1, 'SUCCEEDED']]);
    await waitFor('the log of the success', async () => logged(id, 'discovery succeeded').length === 1);
  });

  it('tries a transient failure again, and ends in ERROR with the reason after the last attempt', async () => {
    // Nothing listens on port 9: the connection is refused (transient) at every attempt.
    const id = await register('refusing', 'http://127.0.0.1:9/mcp');
    const row = await settled(t, id, 30_000);
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/refused/);
    expect(row.statusReason).not.toMatch(/trying again/);
    expect(row.retryReason).toBeNull();
    const runs = await runsOf(t, id);
    expect(runs.map((r) => [r.attempt, r.outcome])).toEqual([
      [1, 'FAILED'],
      [2, 'FAILED'],
    ]);
    expect(runs[0].error).toMatch(/^attempt 1 of 2 failed: .*; trying again$/);
    expect(runs[1].error).toBe(row.statusReason);
  });

  it('ends a permanent failure at once: ERROR with the reason, one attempt', async () => {
    const fixture = await startRawServer({
      name: 'forbidden',
      onHttp: (_req, res) => {
        res.writeHead(403).end();
        return true;
      },
    });
    fixtures.push(fixture);
    const id = await register('forbidden', fixture.url);
    expect(await settled(t, id)).toMatchObject({ status: 'ERROR', statusReason: expect.stringContaining('403 Forbidden') });
    expect((await runsOf(t, id)).map((r) => r.outcome)).toEqual(['FAILED']);
  });

  it('runs a discovery again at once when a newer one was asked for while it ran, and records only the newer', async () => {
    const fixture = await slowToolsList(1500, 'moving');
    fixtures.push(fixture);
    const id = await register('moving', fixture.url);
    await waitFor('the first discovery to run', async () => (await serverRow(t, id))?.discoveryLeaseOwner);
    expect((await t.request('POST', `/api/v1/servers/${id}/discover`)).status).toBe(202);
    await waitFor('the discovery run again', async () => (await runsOf(t, id)).some((r) => r.outcome === 'SUCCEEDED'), 20_000);
    expect(await settled(t, id)).toMatchObject({ status: 'CONNECTED', toolCount: 1 });
    const runs = await runsOf(t, id);
    expect(runs.map((r) => r.outcome)).toEqual(['CANCELLED', 'SUCCEEDED']);
    expect(runs[0].error).toBe('a newer discovery was asked for during this one');
    expect(logged(id, 'discovery superseded; running it again')).toHaveLength(1);
  });

  it('does nothing for a server that is gone: no run, the job done and not tried again', async () => {
    const id = randomUUID();
    await t.app.get(DiscoveryProducer).request(id, 'manual');
    await waitFor('the job to be taken', async () => logged(id, 'discovery not run to the end').length > 0);
    expect(logged(id, 'discovery not run to the end')[0]).toContain('skipped');
    expect(await runsOf(t, id)).toEqual([]);
    expect(logged(id, 'discovery failed')).toEqual([]);
    expect(logged(id, 'discovery started')).toHaveLength(1);
  });
});
