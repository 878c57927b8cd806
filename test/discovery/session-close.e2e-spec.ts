import type { ServerResponse } from 'node:http';
import { RawRequest, RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { registerServer, settled, waitFor } from '../support/servers';

/** How long the servers below take to answer the DELETE that ends a session: well within the worker's wait for it. */
const DELETE_MS = 900;

/**
 * A discovery ends its session on a remote server (DELETE) after the attempt has returned: the next server in
 * the worker's queue does not wait for that round trip, and the session is still ended on the server.
 */
describe('ending a discovery session on a remote server', () => {
  let t: TestApp;
  const servers: RawServer[] = [];
  /** What the servers saw, in order: "<server> initialize", "<server> delete received", "<server> delete answered". */
  const events: string[] = [];

  /** A Streamable HTTP server with sessions, whose DELETE takes DELETE_MS to answer. */
  async function sessionServer(name: string): Promise<RawServer> {
    const server = await startRawServer({
      name,
      onInitialize: (req: RawRequest) => ({
        raw: (res: ServerResponse) => {
          events.push(`${name} initialize`);
          const body = JSON.stringify({
            jsonrpc: '2.0',
            id: req.id,
            result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name, version: '1.0.0' } },
          });
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': `${name}-session` }).end(body);
        },
      }),
      onToolsList: () => ({ result: { tools: [sampleTool(`${name}_tool`)] } }),
      onHttp: (req, res) => {
        if (req.method !== 'DELETE') return false;
        events.push(`${name} delete received`);
        setTimeout(() => {
          events.push(`${name} delete answered`);
          res.writeHead(200).end();
        }, DELETE_MS);
        return true;
      },
    });
    servers.push(server);
    return server;
  }

  beforeAll(async () => {
    // One discovery at a time: the second server waits for the worker to be done with the first.
    t = await startTestApp({ worker: true, env: { DISCOVERY_CONCURRENCY: '1', MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it("starts the next server's discovery without waiting for the DELETE of the one before, which still reaches its server", async () => {
    const [first, second] = [await sessionServer('first'), await sessionServer('second')];
    const a = await registerServer(t, { name: 'close-first', kind: 'BUILT_IN', transport: 'streamable-http', url: first.url });
    const b = await registerServer(t, { name: 'close-second', kind: 'BUILT_IN', transport: 'streamable-http', url: second.url });
    expect((await settled(t, a.id)).status).toBe('CONNECTED');
    expect((await settled(t, b.id)).status).toBe('CONNECTED');
    await waitFor('both sessions ended', async () => events.includes('first delete answered') && events.includes('second delete answered'), 10_000);
    // Whichever the worker took first, the other's discovery began before that one's DELETE was answered (the
    // worker used to wait for that answer, up to a second, before it took the next server).
    const [earlier, later] = events.indexOf('first initialize') < events.indexOf('second initialize') ? ['first', 'second'] : ['second', 'first'];
    expect(events.indexOf(`${earlier} delete received`)).toBeGreaterThan(events.indexOf(`${earlier} initialize`));
    expect(events.indexOf(`${later} initialize`)).toBeLessThan(events.indexOf(`${earlier} delete answered`));
  });
});
