import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { z } from 'zod';
import { ByteBudget, countingFetch } from './byte-budget';
import { McpConnector } from './mcp-connector';
import { McpFailure, McpFailureCode } from './mcp-failure';

const connector = new McpConnector();

describe('the connector', () => {
  it('opens an in-process session and records who the server is and the revision it chose', async () => {
    const session = await connector.connect(
      {
        transport: 'in-process',
        name: 'greeter',
        secrets: [],
        definition: {
          title: 'Greeter',
          description: 'greets',
          create: () => {
            const s = new McpServer({ name: 'greeter', title: 'Greeter', version: '0.9.0' }, { capabilities: { tools: { listChanged: true } }, instructions: 'Say hi.' });
            s.registerTool('hello', { inputSchema: { who: z.string() } }, async ({ who }) => ({ content: [{ type: 'text', text: `hi ${who}` }] }));
            return s;
          },
        },
      },
      { signal: new AbortController().signal },
    );
    expect(session).toMatchObject({
      era: 'legacy',
      transport: 'in-process',
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'greeter', title: 'Greeter', version: '0.9.0' },
      instructions: 'Say hi.',
      capabilities: expect.objectContaining({ tools: { listChanged: true } }),
    });
    const page = await session.request('tools/list', undefined);
    expect((page.tools as { name: string }[]).map((t) => t.name)).toEqual(['hello']);
    await session.close();
  });

  it('gives up on a stdio server that never answers when the deadline aborts, and kills it', async () => {
    const deadline = new AbortController();
    let stderr: () => string = () => '';
    const started = Date.now();
    const attempt = connector.connect(
      {
        transport: 'stdio',
        command: process.execPath,
        args: ['-e', "process.stderr.write('listening?\\n'); process.stdin.resume()"],
        env: { PATH: process.env.PATH ?? '' },
        cwd: tmpdir(),
        secrets: [],
      },
      { signal: deadline.signal, onStderr: (read) => (stderr = read) },
    );
    setTimeout(() => deadline.abort(new McpFailure(McpFailureCode.Timeout, 'no answer within 300 ms (while waiting for initialize)')), 300);
    await expect(attempt).rejects.toMatchObject({ code: McpFailureCode.Timeout, message: 'no answer within 300 ms (while waiting for initialize)' });
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 100));
    expect(stderr()).toBe('listening?\n');
  });
});

describe('the byte budget', () => {
  it('cuts a response body off once the budget is spent, while it streams', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 64) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const budget = new ByteBudget(256 * 1024);
      const res = await countingFetch(fetch, budget)(url);
      await expect(res.text()).rejects.toMatchObject({ code: McpFailureCode.LimitExceeded });
      expect(budget.exceeded).toBe(true);
      expect(budget.bytes).toBeLessThan(512 * 1024);
      // Within the budget the body arrives whole and unchanged.
      const roomy = await countingFetch(fetch, new ByteBudget(8 * 1024 * 1024))(url);
      expect((await roomy.text()).length).toBe(64 * 64 * 1024);
    } finally {
      server.close();
    }
  });
});
