import { ChangeFeed, VirtualServerFeedChange } from '@app/database';
import { Client } from 'pg';
import { McpChangeStreams } from '../../apps/api/src/mcp/mcp-change-streams.service';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { registerServer, settled, waitFor } from '../support/servers';

/** Counts the statements of every pg client of this process (pools, Prisma's adapter) that name the virtual servers' tables. */
function countVirtualServerStatements(): { count(): number; restore(): void } {
  // A spy calls the real method: the statements still run, they are only looked at.
  const spy = jest.spyOn(Client.prototype, 'query');
  const names = (call: unknown[]) => {
    const first = call[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : first?.text;
    return text !== undefined && /\bvirtual_server(s|_members)\b/.test(text);
  };
  return { count: () => spy.mock.calls.filter(names).length, restore: () => spy.mockRestore() };
}

/** A 2025-era GET change stream on an MCP path, and the list_changed notifications it has carried. */
async function openStream(t: TestApp, path: string): Promise<{ heard: string[]; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${t.adminKey}`, accept: 'text/event-stream' }, signal: abort.signal });
  expect(res.status).toBe(200);
  const heard: string[] = [];
  const reader = res.body!.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffered += decoder.decode(value, { stream: true });
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame);
          if (data) heard.push((JSON.parse(data[1]) as { method: string }).method);
        }
      }
    } catch {
      // closed by the test
    }
  })();
  return { heard, close: () => abort.abort() };
}

/**
 * Virtual servers on the registry's one change feed: a change of a member server and a change of the virtual
 * server itself both reach an open /mcp/v/{id} stream, and with no stream open nothing about virtual servers
 * is read, not even when one changes.
 */
describe("a virtual server's change streams, on the change feed", () => {
  let t: TestApp;
  let fixture: RawServer;
  let tools = ['lookup', 'store'];
  let alpha: string;
  let beta: string;
  let virtualId: string;
  let feed: ChangeFeed;

  beforeAll(async () => {
    fixture = await startRawServer({ onToolsList: () => ({ result: { tools: tools.map((n) => sampleTool(n)) } }) });
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    alpha = (await registerServer(t, { name: 'alpha', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url })).id;
    beta = (await registerServer(t, { name: 'beta', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url })).id;
    for (const id of [alpha, beta]) expect((await settled(t, id)).status).toBe('CONNECTED');
    virtualId = (await t.request('POST', '/api/v1/virtual-servers', { body: { name: 'pair', servers: [alpha, beta] } })).body.id;
    await waitFor('both members listed', async () => (await t.request('GET', `/api/v1/virtual-servers/${virtualId}/tools`)).body.tools?.length === 4);
    feed = t.app.get(ChangeFeed, { strict: false });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  /** Resolves when the feed has delivered a change of this virtual server. */
  function delivered(id: string): Promise<void> {
    return new Promise((resolve) => {
      const stop = feed.subscribe({
        virtualServers: (changes: VirtualServerFeedChange[]) => {
          if (!changes.some((c) => c.virtualServerId === id)) return;
          stop();
          resolve();
        },
      });
    });
  }

  it('reads nothing of virtual servers while no stream is open, even when one changes', async () => {
    expect(t.app.get(McpChangeStreams, { strict: false }).size).toBe(0);
    const heard = delivered(virtualId);
    expect((await t.request('PATCH', `/api/v1/virtual-servers/${virtualId}`, { body: { description: 'quiet' } })).status).toBe(200);
    const statements = countVirtualServerStatements();
    try {
      await heard;
      // Longer than two periods of any reading once a second: a poll would be counted at least twice.
      await new Promise((r) => setTimeout(r, 2500));
      expect(statements.count()).toBe(0);
    } finally {
      statements.restore();
    }
  });

  it("tells an open stream of a member's tool change and of a change of the virtual server itself", async () => {
    const stream = await openStream(t, `/mcp/v/${virtualId}`);
    try {
      await waitFor('the stream to be held', async () => t.app.get(McpChangeStreams, { strict: false }).size === 1, 10_000, 20);

      // A member's tools change (rediscovered with another tool): the tool catalog hears of it on the feed.
      tools = ['lookup', 'store', 'forget'];
      expect((await t.request('POST', `/api/v1/servers/${alpha}/discover`)).status).toBe(202);
      await waitFor('list_changed after the member changed', async () => stream.heard.length >= 1, 20_000, 20);
      expect(stream.heard).toEqual(['notifications/tools/list_changed']);
      expect((await t.request('GET', `/api/v1/virtual-servers/${virtualId}/tools`)).body.tools.map((x: { name: string }) => x.name)).toContain('alpha__forget');

      // The virtual server itself changes: its edit is logged to the feed in the edit's transaction.
      const started = Date.now();
      expect((await t.request('PATCH', `/api/v1/virtual-servers/${virtualId}`, { body: { tools: [{ serverId: beta, toolName: 'store' }] } })).status).toBe(200);
      await waitFor('list_changed after the virtual server changed', async () => stream.heard.length >= 2, 10_000, 20);
      const tookMs = Date.now() - started;
      expect(stream.heard).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed']);
      expect(tookMs).toBeLessThan(3000);
      process.stdout.write(`\nlist_changed after an edit of the virtual server: ${tookMs} ms\n`);

      // A change the stream's lists do not show (its description) announces nothing.
      const quiet = delivered(virtualId);
      expect((await t.request('PATCH', `/api/v1/virtual-servers/${virtualId}`, { body: { description: 'still quiet' } })).status).toBe(200);
      await quiet;
      await t.app.get(McpChangeStreams, { strict: false }).settled();
      expect(stream.heard).toHaveLength(2);
    } finally {
      stream.close();
    }
  }, 60_000);
});
