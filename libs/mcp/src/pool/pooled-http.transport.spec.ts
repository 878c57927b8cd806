import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { z } from 'zod';
import { classifyError } from '../connection/classify-error';
import { McpFailureCode } from '../connection/mcp-failure';
import { OutboundPolicy } from '../outbound-policy';
import { PooledHttpTransport } from './pooled-http.transport';
import { policyLookup } from './policy-lookup';

interface Upstream {
  url: URL;
  seen: { method: string; headers: IncomingMessage['headers']; body: unknown }[];
  sessions: Map<string, StreamableHTTPServerTransport>;
  /** The MCP server of each session, in the order they were opened. */
  servers: McpServer[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => resolve(text ? JSON.parse(text) : undefined));
  });
}

/** An SDK server over Streamable HTTP with sessions, answering JSON or event streams; `special` may take a request over. */
async function upstream(json: boolean, special?: (req: IncomingMessage, res: ServerResponse, body: unknown) => boolean): Promise<Upstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const seen: Upstream['seen'] = [];
  const http: Server = createServer(async (req, res) => {
    const parsed = req.method === 'POST' ? await body(req) : undefined;
    seen.push({ method: req.method ?? '', headers: req.headers, body: parsed });
    if (special?.(req, res, parsed)) return;
    const sid = req.headers['mcp-session-id'] as string | undefined;
    const known = sid ? sessions.get(sid) : undefined;
    if (known) return known.handleRequest(req, res, parsed);
    if (sid || !isInitializeRequest(parsed)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
      return;
    }
    const server = new McpServer({ name: 'upstream', version: '1.0.0' });
    servers.push(server);
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('steps', { inputSchema: { n: z.number() } }, async ({ n }, extra) => {
      for (let i = 1; i <= n; i++) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: extra._meta!.progressToken!, progress: i, total: n } });
      }
      return { content: [{ type: 'text', text: `${n} steps` }] };
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    seen,
    sessions,
    servers,
    close: () =>
      new Promise((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('PooledHttpTransport', () => {
  const open: Upstream[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(open.splice(0).map((u) => u.close()));
  });

  async function connect(u: Upstream, headers: Record<string, string> = {}): Promise<{ client: Client; transport: PooledHttpTransport }> {
    const transport = new PooledHttpTransport(u.url, { headers });
    const client = new Client({ name: 'spec', version: '1' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it.each([
    ['JSON answers', true],
    ['event-stream answers', false],
  ])('speaks Streamable HTTP with %s: session id, protocol version, headers, concurrent calls', async (_label, json) => {
    const u = await upstream(json);
    open.push(u);
    const { client, transport } = await connect(u, { authorization: 'Bearer t0k3n' });
    expect(transport.sessionId).toEqual(expect.any(String));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'steps']);
    const answers = await Promise.all(['a', 'b', 'c'].map((text) => client.callTool({ name: 'echo', arguments: { text } })));
    expect(answers.map((a) => (a.content as { text: string }[])[0].text)).toEqual(['a', 'b', 'c']);
    const later = u.seen.filter((s) => s.method === 'POST').slice(1);
    expect(later.every((s) => s.headers['mcp-session-id'] === transport.sessionId && s.headers['mcp-protocol-version'])).toBe(true);
    expect(u.seen.every((s) => s.headers.authorization === 'Bearer t0k3n')).toBe(true);
    // No standalone GET stream: a pooled session needs nothing the server would say unasked.
    expect(u.seen.some((s) => s.method === 'GET')).toBe(false);
  });

  it('opens the standalone stream when asked, hears what the server says unasked, and opens the stream again when the server ends it', async () => {
    const streams: ServerResponse[] = [];
    const u = await upstream(true, (req, res) => {
      if (req.method === 'GET') streams.push(res);
      return false;
    });
    open.push(u);
    const { client, transport } = await connect(u);
    let heard = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      heard++;
    });
    await transport.listen();
    const getRequest = u.seen.find((s) => s.method === 'GET');
    expect(getRequest?.headers).toMatchObject({ accept: 'text/event-stream', 'mcp-session-id': transport.sessionId });
    u.servers[0].sendToolListChanged();
    await until(() => heard === 1);
    // The server (or a proxy on the way) ends the stream: it is opened again, and the session still hears.
    streams[0].end();
    await until(() => streams.length === 2, 5000);
    await until(() => u.servers[0].isConnected() && u.seen.filter((s) => s.method === 'GET').length === 2);
    await new Promise((r) => setTimeout(r, 50));
    u.servers[0].sendToolListChanged();
    await until(() => heard === 2);
  });

  it('takes a 405 to the standalone stream as "none offered", and reports any other refusal with its status', async () => {
    let status = 405;
    const u = await upstream(true, (req, res) => {
      if (req.method !== 'GET') return false;
      res.writeHead(status).end();
      return true;
    });
    open.push(u);
    const { client, transport } = await connect(u);
    await expect(transport.listen()).resolves.toBeUndefined();
    expect((await client.listTools()).tools).toHaveLength(2);
    status = 403;
    await expect(transport.listen()).rejects.toMatchObject({ status: 403 });
  });

  it('delivers every progress notification before the response that follows it', async () => {
    const u = await upstream(false);
    open.push(u);
    const { client } = await connect(u);
    const seen: number[] = [];
    const result = await client.callTool({ name: 'steps', arguments: { n: 5 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
    expect(result.content).toEqual([{ type: 'text', text: '5 steps' }]);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('ends the session on the server with DELETE', async () => {
    const u = await upstream(true);
    open.push(u);
    const { transport } = await connect(u);
    expect(u.sessions.size).toBe(1);
    await transport.terminateSession();
    expect(u.seen.at(-1)?.method).toBe('DELETE');
    expect(u.sessions.size).toBe(0);
  });

  it('fails a request at once when its answer stream ends without the answer', async () => {
    const u = await upstream(false, (req, res, parsed) => {
      if ((parsed as { params?: { name?: string } })?.params?.name !== 'cut') return false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(': nothing to say\n\n');
      return true;
    });
    open.push(u);
    const { client } = await connect(u);
    const started = Date.now();
    const err = await client.callTool({ name: 'cut', arguments: {} }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(classifyError(err, 'tools/call').code).toBe(McpFailureCode.ConnectionReset);
  });

  it('reports HTTP failures with their status, as the SDK does (an expired session is a 404)', async () => {
    const u = await upstream(true);
    open.push(u);
    const { client, transport } = await connect(u);
    u.sessions.clear();
    const err = await client.callTool({ name: 'echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
    expect(classifyError(err, 'tools/call')).toMatchObject({ code: McpFailureCode.ConnectionReset, httpStatus: 404, transient: true });
    expect(transport.sessionId).toBeDefined();
  });

  it('reports a 404 before any session as a wrong URL, not as a forgotten session', async () => {
    const server = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/wrong/mcp`);
      const client = new Client({ name: 't', version: '1' });
      const err = await client.connect(new PooledHttpTransport(url, { headers: {} })).catch((e: unknown) => e);
      expect(classifyError(err, 'initialize')).toMatchObject({ code: McpFailureCode.NotFound, httpStatus: 404, transient: false });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('sends a request once more when the kept-alive connection it went out on was already closed by the server', async () => {
    const perSocket = new WeakMap<object, number>();
    let dropped = 0;
    const u = await upstream(true, (req) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // The server drops a connection it had kept open, as if it had timed it out, without answering.
      if (n > 1 && dropped === 0) {
        dropped++;
        req.socket.destroy();
        return true;
      }
      return false;
    });
    open.push(u);
    const { client } = await connect(u);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'again' } });
    expect(result.content).toEqual([{ type: 'text', text: 'again' }]);
    expect(dropped).toBe(1);
  });

  it('refuses, as the connection opens, a host name that resolves to an address the policy blocks', async () => {
    const u = await upstream(true);
    open.push(u);
    const url = new URL(u.url);
    url.hostname = 'localhost';
    const transport = new PooledHttpTransport(url, { headers: {}, lookup: policyLookup(new OutboundPolicy([])) });
    const client = new Client({ name: 'spec', version: '1' });
    const err = await client.connect(transport).catch((e: unknown) => e);
    expect(classifyError(err, 'initialize').code).toBe(McpFailureCode.OutboundBlocked);
    expect(u.seen).toHaveLength(0);
    const allowed = new PooledHttpTransport(url, { headers: {}, lookup: policyLookup(new OutboundPolicy(['localhost'])) });
    const ok = new Client({ name: 'spec', version: '1' });
    await ok.connect(allowed);
    clients.push(ok);
  });
});
