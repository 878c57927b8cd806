import { DiscoveryStateRepository } from '@app/database';
import { randomUUID } from 'node:crypto';
import { CallFixture, startCallFixture } from '../../../test/llm/call-fixtures';
import { startTestApp, TestApp } from '../../../test/support/app';
import { makeTenant, registerServer, serverRow, toolsOf } from '../../../test/support/servers';
import { DiscoveryModule } from './discovery.module';
import { DiscoveryService } from './discovery.service';

/**
 * One discovery attempt, as the worker's processor asks for it, on the real database and a real MCP server over
 * Streamable HTTP. No worker runs in this process: each attempt here is the only one.
 */
describe('DiscoveryService.discover', () => {
  let t: TestApp;
  let fixture: CallFixture;
  let discovery: DiscoveryService;
  let key: string;

  const register = async (body: Record<string, unknown>) => (await registerServer(t, { transport: 'streamable-http', ...body }, key)).id;
  const attempt = (serverId: string, attempt = 1, maxAttempts = 1) => discovery.discover({ serverId, trigger: 'registered', attempt, maxAttempts });

  beforeAll(async () => {
    fixture = await startCallFixture();
    t = await startTestApp({ worker: false, modules: [DiscoveryModule], env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '5000' } });
    discovery = t.app.get(DiscoveryService);
    key = (await makeTenant(t)).key;
  });
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  it('connects, lists the tools and records them: CONNECTED, the lease given back', async () => {
    const id = await register({ name: 'reachable', url: fixture.url });
    const outcome = await attempt(id);
    expect(outcome).toMatchObject({ kind: 'succeeded', changes: expect.anything() });
    const row = await serverRow(t, id);
    expect([row!.status, row!.statusReason]).toEqual(['CONNECTED', null]);
    const tools = (await toolsOf(t, id)).map((x: { name: string }) => x.name);
    expect(tools).toContain('echo');
    expect(outcome.kind === 'succeeded' && outcome.toolCount).toBe(tools.length);
    // The lease was given back: the next attempt takes the server at once.
    expect((await attempt(id)).kind).toBe('succeeded');
  });

  it('a transient failure before the last attempt says it will try again and is not final; on the last it is ERROR', async () => {
    const id = await register({ name: 'refusing', url: 'http://127.0.0.1:9/mcp' });
    const first = await attempt(id, 1, 2);
    expect(first).toMatchObject({ kind: 'failed', final: false });
    expect(first.kind === 'failed' && first.reason).toMatch(/^attempt 1 of 2 failed: .*; trying again$/);
    expect((await serverRow(t, id))!.status).not.toBe('ERROR');
    const last = await attempt(id, 2, 2);
    expect(last).toMatchObject({ kind: 'failed', final: true });
    const row = await serverRow(t, id);
    expect(row!.status).toBe('ERROR');
    expect(row!.statusReason).not.toMatch(/trying again/);
  });

  it('skips a server that is gone, and one that is disabled (which ends DISCONNECTED)', async () => {
    expect(await attempt(randomUUID())).toEqual({ kind: 'skipped', reason: 'gone' });
    const id = await register({ name: 'disabled', url: fixture.url, enabled: false });
    expect(await attempt(id)).toEqual({ kind: 'skipped', reason: 'disabled' });
    expect((await serverRow(t, id))!.status).toBe('DISCONNECTED');
  });

  it("answers busy, with the other worker's lease end, while another worker holds the server", async () => {
    const id = await register({ name: 'held', url: fixture.url });
    const state = t.app.get(DiscoveryStateRepository);
    const held = await state.claim(id, 'another-worker', 60_000, { trigger: 'registered', attempt: 1, orphanedRun: 'the worker stopped' });
    expect(held.status).toBe('claimed');
    const outcome = await attempt(id);
    expect(outcome.kind).toBe('busy');
    expect(outcome.kind === 'busy' && outcome.until.getTime()).toBeGreaterThan(Date.now() + 30_000);
  });
});
