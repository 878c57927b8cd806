import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { waitForPort } from '../fixtures/net';
import { z } from 'zod';
import { readJsonBody } from '../fixtures/request-body';

export const CONNECT_LINK = 'https://pipedream.com/_static/connect.html?token=ctok_test&connectLink=true&app=slack';

export interface CallFixture {
  url: string;
  /** Sessions initialized so far (each initialize is one session). */
  sessionsOpened(): number;
  /** Sessions the client ended (DELETE) or that closed. */
  sessionsClosed(): number;
  /** Calls of `hang` the client cancelled (notifications/cancelled reached the tool). */
  cancelled(): number;
  /** Calls of `progress` that reached the tool so far. */
  progressCalls(): number;
  /** Forgets every session, as a server that restarted would: their next request is answered 404. */
  forgetSessions(): void;
  close(): Promise<void>;
}

/**
 * A tenant's MCP server over Streamable HTTP with sessions, for the call path: `echo`; `hang`, which never
 * answers until cancelled; `progress`, which reports progress every `stepMs` for `steps` steps before
 * answering; `fails`, which answers isError with a Pipedream connect link; `session`, which answers the id of
 * the session it was called on; `whoami`, which answers the
 * Authorization header it was sent, so that the credentials the registry applied can be checked.
 */
export async function startCallFixture(): Promise<CallFixture> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let opened = 0;
  let closed = 0;
  let cancelled = 0;
  let progressCalls = 0;
  let stopped = false;
  const http = createServer(async (req, res) => {
    try {
      const sessionId = req.headers['mcp-session-id'] as string | undefined;
      const body = req.method === 'POST' ? await readJsonBody(req) : undefined;
      const existing = sessionId ? sessions.get(sessionId) : undefined;
      if (existing) {
        await existing.handleRequest(req, res, body);
        return;
      }
      if (sessionId || !isInitializeRequest(body)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}');
        return;
      }
      const authorization = req.headers.authorization ?? '';
      const server = new McpServer({ name: 'call-fixture', version: '2.0.0' });
      server.registerTool('echo', { description: 'Echo the message back', inputSchema: { message: z.string() } }, async ({ message }) => ({
        content: [{ type: 'text', text: `Echo: ${message}` }],
        structuredContent: { echoed: message },
      }));
      server.registerTool('hang', { description: 'Never answers' }, (extra) =>
        new Promise((_resolve, reject) =>
          extra.signal.addEventListener('abort', () => {
            cancelled++;
            reject(new Error('cancelled'));
          }),
        ),
      );
      server.registerTool(
        'progress',
        { description: 'Works for a while, reporting progress', inputSchema: { steps: z.number().int(), stepMs: z.number().int() } },
        async ({ steps, stepMs }, extra) => {
          progressCalls++;
          const token = extra._meta?.progressToken;
          for (let i = 1; i <= steps; i++) {
            await new Promise((r) => setTimeout(r, stepMs));
            if (extra.signal.aborted || stopped) throw new Error('cancelled');
            if (token !== undefined) {
              await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
            }
          }
          return { content: [{ type: 'text', text: `done after ${steps} steps` }] };
        },
      );
      server.registerTool('fails', { description: 'Needs the user to connect an account first' }, async () => ({
        isError: true,
        content: [{ type: 'text', text: `Connect your Slack account first: ${CONNECT_LINK}` }],
        _meta: { connectLink: CONNECT_LINK },
      }));
      server.registerTool('session', { description: 'Tells which session the call arrived on' }, async (extra) => ({
        content: [{ type: 'text', text: extra.sessionId ?? '' }],
      }));
      server.registerTool('whoami', { description: 'Tells which credentials reached the server' }, async () => ({
        content: [{ type: 'text', text: authorization }],
      }));
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          opened++;
          sessions.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId && sessions.delete(transport.sessionId)) closed++;
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  const sockets = new Set<Socket>();
  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessionsOpened: () => opened,
    sessionsClosed: () => closed,
    cancelled: () => cancelled,
    progressCalls: () => progressCalls,
    forgetSessions: () => sessions.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        for (const s of sockets) s.destroy();
        http.close(() => resolve());
      }),
  };
}

export interface Everything {
  url: string;
  close(): Promise<void>;
}

/** The published reference server `server-everything` over Streamable HTTP, in its own process on a free port. */
export async function startEverything(): Promise<Everything> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const entry = join(__dirname, '..', '..', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  const child: ChildProcess = spawn(process.execPath, [entry, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: 'ignore',
  });
  await waitForPort(port, 15_000, () => child.exitCode !== null);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
