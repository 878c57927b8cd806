import { InProcessServers } from '@app/mcp';
import { DiscoveryProducer } from '@app/queue';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { stdioFixture } from '../fixtures/hostile-servers';
import {
  everythingStdio,
  memoryStdio,
  plainSdkTools,
  startEverything,
  startModernServer,
  startPaginatedServer,
} from '../fixtures/reference-servers';
import { sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp } from '../support/app';
import { insertServer, makeTenant, registerServer, runsOf, settled, toolsOf, waitFor } from '../support/servers';
import { tempDir, useStand } from '../support/stand';

const timings: string[] = [];

describe('discovery of the reference servers over real transports', () => {
  const s = useStand(async (keep) => {
    keep(timings, (lines) => {
      if (lines.length) process.stdout.write(`\ndiscovery durations (ms):\n${lines.join('\n')}\n`);
    });
    const memoryDir = tempDir(keep, 'mcpr-memory-');
    const [t, everythingHttp, everythingSse, paginated, modern] = await Promise.all([
      startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '20000' } }),
      startEverything('streamableHttp'),
      startEverything('sse'),
      startPaginatedServer(25, 10),
      startModernServer(),
    ]);
    for (const server of [modern, paginated, everythingSse, everythingHttp, t]) keep(server);
    return { t, everythingHttp, everythingSse, paginated, modern, memoryDir };
  });

  /** Compares what discovery stored (read back through the REST API) with what a plain SDK client lists: every field, as it reads them. */
  async function expectSameTools(id: string, expected: Tool[]): Promise<void> {
    const res = await s.t.request('GET', `/api/v1/servers/${id}/tools`);
    expect(res.status).toBe(200);
    expect(res.body.tools).toEqual(expected);
  }

  it('ends server-everything (stdio, SSE, Streamable HTTP) and server-memory (stdio) CONNECTED with exactly the tools a plain SDK client lists', async () => {
    const memoryEnv = { MEMORY_FILE_PATH: join(s.memoryDir, 'memory.jsonl') };
    const registered = {
      stdio: await registerServer(s.t, { name: 'everything-stdio', kind: 'BUILT_IN', transport: 'stdio', ...everythingStdio() }),
      sse: await registerServer(s.t, { name: 'everything-sse', kind: 'BUILT_IN', transport: 'sse', url: s.everythingSse.url }),
      http: await registerServer(s.t, { name: 'everything-http', kind: 'BUILT_IN', transport: 'streamable-http', url: s.everythingHttp.url }),
      memory: await registerServer(s.t, { name: 'memory', kind: 'BUILT_IN', transport: 'stdio', ...memoryStdio(), env: memoryEnv }),
    };
    const [stdioTools, sseTools, httpTools, memoryTools] = await Promise.all([
      plainSdkTools(everythingStdio()),
      plainSdkTools({ url: s.everythingSse.url, transport: 'sse' }),
      plainSdkTools({ url: s.everythingHttp.url, transport: 'streamable-http' }),
      plainSdkTools({ ...memoryStdio(), env: { PATH: process.env.PATH ?? '', ...memoryEnv } }),
    ]);
    for (const [label, server] of Object.entries(registered)) {
      const row = await settled(s.t, server.id, 60_000);
      expect({ label, status: row.status, reason: row.statusReason }).toEqual({ label, status: 'CONNECTED', reason: null });
      const [run] = await runsOf(s.t, server.id);
      timings.push(`  ${label.padEnd(8)} ${run.durationMs}`);
    }
    expect(stdioTools.length).toBeGreaterThan(10);
    await expectSameTools(registered.stdio.id, stdioTools);
    await expectSameTools(registered.sse.id, sseTools);
    await expectSameTools(registered.http.id, httpTools);
    await expectSameTools(registered.memory.id, memoryTools);
  });

  it('records who the server is: name, title, version, protocol version, instructions, capabilities, resource and prompt counts', async () => {
    const server = await registerServer(s.t, { name: 'everything-identity', kind: 'BUILT_IN', transport: 'streamable-http', url: s.everythingHttp.url });
    const row = await settled(s.t, server.id, 30_000);
    expect(row).toMatchObject({
      status: 'CONNECTED',
      serverName: 'mcp-servers/everything',
      serverTitle: 'Everything Reference Server',
      serverVersion: '2.0.0',
      protocolVersion: '2025-11-25',
      instructions: expect.stringContaining('Everything'),
      capabilities: expect.objectContaining({ tools: { listChanged: true }, prompts: { listChanged: true } }),
      toolCount: expect.any(Number),
      resourceCount: expect.any(Number),
      promptCount: expect.any(Number),
      lastDiscoveredAt: expect.any(Date),
      nextDiscoveryAt: expect.any(Date),
    });
    expect(row.resourceCount).toBeGreaterThan(0);
    expect(row.promptCount).toBeGreaterThan(0);
    // The next discovery is the interval away (3600 s by default), spread by ±10%.
    const inMs = row.nextDiscoveryAt!.getTime() - row.lastDiscoveredAt!.getTime();
    expect(inMs).toBeGreaterThan(3600_000 * 0.89);
    expect(inMs).toBeLessThan(3600_000 * 1.11);
    const [run] = await runsOf(s.t, server.id);
    expect(run).toMatchObject({ trigger: 'registered', attempt: 1, outcome: 'SUCCEEDED', toolCount: row.toolCount, error: null });
    expect(run.added).toHaveLength(row.toolCount);
  });

  it('stores every page of a paginated server (a tenant server over HTTP, and a stdio server)', async () => {
    const tenant = await makeTenant(s.t);
    const http = await registerServer(s.t, { name: 'paginated-http', transport: 'streamable-http', url: s.paginated.url }, tenant.key);
    const stdio = await registerServer(s.t, { name: 'paginated-stdio', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('paginated-server.cjs', '23', '5') });
    const httpRow = await settled(s.t, http.id);
    const stdioRow = await settled(s.t, stdio.id);
    expect([httpRow.status, httpRow.toolCount]).toEqual(['CONNECTED', 25]);
    expect([stdioRow.status, stdioRow.toolCount]).toEqual(['CONNECTED', 23]);
    const names = (await toolsOf(s.t, http.id)).map((x) => x.name);
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `paged_${String(i).padStart(3, '0')}`));
    expect((await toolsOf(s.t, stdio.id)).map((x) => x.position)).toEqual(Array.from({ length: 23 }, (_, i) => i));
  });

  it('reaches 2026-07-28 servers, which refuse initialize, over Streamable HTTP and stdio', async () => {
    const http = await registerServer(s.t, { name: 'modern-http', kind: 'BUILT_IN', transport: 'streamable-http', url: s.modern.url });
    const stdio = await registerServer(s.t, { name: 'modern-stdio', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('modern-server.cjs') });
    const httpRow = await settled(s.t, http.id);
    expect(httpRow).toMatchObject({
      status: 'CONNECTED',
      protocolVersion: '2026-07-28',
      serverName: 'modern-fixture',
      serverTitle: 'Modern fixture',
      instructions: 'A server of the 2026-07-28 revision.',
      toolCount: 2,
    });
    // An output schema whose root is an array is legal in 2026-07-28 and kept.
    const colors = (await toolsOf(s.t, http.id)).find((x) => x.name === 'list_colors');
    expect(colors?.outputSchema).toMatchObject({ type: 'array' });
    const stdioRow = await settled(s.t, stdio.id);
    expect(stdioRow).toMatchObject({ status: 'CONNECTED', protocolVersion: '2026-07-28', serverName: 'modern-stdio-fixture', toolCount: 1 });
  });

  it('remembers that a server speaks 2026-07-28: the next discovery of a stdio one starts one process, not two', async () => {
    const starts = join(mkdtempSync(join(tmpdir(), 'mcpr-starts-')), 'starts');
    const lines = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean) : []);
    /** Processes that began with each method (the change watcher starts processes of its own, at its own time). */
    const began = (method: string) => lines().filter((l) => l === `first:${method}`).length;
    const stdio = await registerServer(s.t, { name: 'modern-remembered', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('modern-server.cjs'), env: { STARTS_FILE: starts } });
    expect(await settled(s.t, stdio.id)).toMatchObject({ status: 'CONNECTED', protocolVersion: '2026-07-28' });
    // The first time: initialize refused by one process, then server/discover with a second.
    expect(began('initialize')).toBe(1);
    expect(began('server/discover')).toBeGreaterThanOrEqual(1);
    const discoverBefore = began('server/discover');
    expect((await s.t.request('POST', `/api/v1/servers/${stdio.id}/discover`)).status).toBe(202);
    await waitFor('the second discovery', async () => (await runsOf(s.t, stdio.id)).filter((r) => r.outcome === 'SUCCEEDED').length === 2, 20_000);
    expect(await settled(s.t, stdio.id)).toMatchObject({ status: 'CONNECTED', protocolVersion: '2026-07-28', toolCount: 1 });
    // The second discovery went straight to server/discover: no process was started only to be refused.
    expect(began('server/discover')).toBeGreaterThan(discoverBefore);
    expect(began('initialize')).toBe(1);
  });

  it('falls back to HTTP+SSE when a Streamable HTTP registration points at an SSE server', async () => {
    const server = await registerServer(s.t, { name: 'sse-behind-streamable', kind: 'BUILT_IN', transport: 'streamable-http', url: s.everythingSse.url });
    const row = await settled(s.t, server.id);
    expect(row).toMatchObject({ status: 'CONNECTED', serverName: 'mcp-servers/everything' });
    await expectSameTools(server.id, await plainSdkTools({ url: s.everythingSse.url, transport: 'sse' }));
  });

  it('follows a redirect to where the server moved (the lean HTTP client hands over to the redirect-following one)', async () => {
    const moved = await startRawServer({
      name: 'moved-server',
      onHttp: (req, res) => {
        if (!req.url?.startsWith('/old')) return false;
        res.writeHead(308, { location: '/mcp' }).end();
        return true;
      },
      onToolsList: () => ({ result: { tools: [sampleTool('after_the_move')] } }),
    });
    try {
      const server = await registerServer(s.t, { name: 'moved', kind: 'BUILT_IN', transport: 'streamable-http', url: moved.url.replace(/\/mcp$/, '/old/mcp') });
      const row = await settled(s.t, server.id);
      expect(row).toMatchObject({ status: 'CONNECTED', serverName: 'moved-server', toolCount: 1 });
      expect((await toolsOf(s.t, server.id)).map((x) => x.name)).toEqual(['after_the_move']);
    } finally {
      await moved.close();
    }
  });

  it('discovers an INTERNAL server in-process, from the definition another module registered', async () => {
    s.t.app.get(InProcessServers).register('calculator', {
      title: 'Calculator',
      description: 'Adds numbers',
      create: () => {
        const server = new McpServer({ name: 'calculator', version: '3.1.0' }, { capabilities: { tools: {} } });
        server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
          content: [{ type: 'text', text: String(a + b) }],
        }));
        return server;
      },
    });
    const id = await insertServer(s.t, { name: 'calculator', kind: 'INTERNAL', transport: 'IN_PROCESS' });
    await s.t.app.get(DiscoveryProducer).request(id, 'startup');
    const row = await settled(s.t, id);
    expect(row).toMatchObject({ status: 'CONNECTED', serverName: 'calculator', serverVersion: '3.1.0', toolCount: 1 });
    const [tool] = await toolsOf(s.t, id);
    expect(tool).toMatchObject({ name: 'add', description: 'Adds two numbers', inputSchema: expect.objectContaining({ type: 'object' }) });
  });
});
