import { McpChangeStreams } from '../../apps/api/src/mcp/mcp-change-streams.service';
import { startTestApp, TestApp } from '../support/app';
import { sdk2Client } from '../support/mcp-clients';
import { waitFor } from '../support/servers';

/** A stop with change streams open (a 2025-era GET stream, a 2026-07-28 listen): they are ended, and the stop does not wait for their clients. */
describe('stopping with change streams open', () => {
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
  });

  it('ends the streams cleanly and closes well within the shutdown bound', async () => {
    // A bound long enough that a stop waiting on the stream could not pass for a prompt one.
    t = await startTestApp({ worker: false, env: { SHUTDOWN_TIMEOUT_MS: '20000' } });
    const app = t;
    const res = await fetch(`${app.baseUrl}/mcp`, { headers: { authorization: `Bearer ${app.adminKey}`, accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('listening for list changes');
    // And a 2026-07-28 listen beside it.
    const modern = await sdk2Client(`${app.baseUrl}/mcp`, app.adminKey, 'pinned');
    await modern.listen({ toolsListChanged: true });
    await waitFor('both streams to be held', async () => app.app.get(McpChangeStreams, { strict: false }).size === 2, 10_000, 20);
    // How the stream ends: by the server's end of the response (done), or cut with the connection (an error).
    const ending = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return 'ended';
      } catch {
        return 'cut';
      }
    })();
    const started = Date.now();
    await app.close();
    const tookMs = Date.now() - started;
    expect(await ending).toBe('ended');
    await modern.close().catch(() => undefined);
    expect(tookMs).toBeLessThan(5000);
    process.stdout.write(`\nstop with two change streams open: ${tookMs} ms\n`);
  }, 60_000);
});
