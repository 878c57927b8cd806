import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpConnector } from '../connection/mcp-connector';
import { McpFailure, McpFailureCode } from '../connection/mcp-failure';
import { McpSession } from '../connection/mcp-session';
import { McpSessionPool } from './mcp-session-pool';

/** A real MCP server reached in memory, counting the sessions opened on it. */
function fixture() {
  const state = { sessions: 0, closed: 0 };
  const definition = {
    title: 'fixture',
    description: 'pool fixture',
    create() {
      state.sessions++;
      const server = new McpServer({ name: 'fixture', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
      server.registerTool('hang', {}, (extra) => new Promise((_resolve, reject) => extra.signal.addEventListener('abort', () => reject(new Error('cancelled')))));
      let counted = false;
      server.server.onclose = () => {
        if (!counted) state.closed++;
        counted = true;
      };
      return server;
    },
  };
  const connector = new McpConnector();
  const open = (): Promise<McpSession> =>
    connector.connect({ transport: 'in-process', name: 'fixture', definition, secrets: [] }, { signal: AbortSignal.timeout(5000) });
  return { state, open };
}

const echo = (text: string) => (s: McpSession) => s.request('tools/call', { name: 'echo', arguments: { text } }, { timeoutMs: 5000 });

describe('McpSessionPool', () => {
  let pool: McpSessionPool;
  afterEach(() => pool?.close());

  it('reuses one session across calls, and shares it between concurrent calls', async () => {
    pool = new McpSessionPool();
    const f = fixture();
    expect(await pool.use('a', f.open, echo('one'))).toMatchObject({ content: [{ type: 'text', text: 'one' }] });
    await pool.use('a', f.open, echo('two'));
    await Promise.all([1, 2, 3, 4].map((i) => pool.use('b', f.open, echo(String(i)))));
    expect(f.state.sessions).toBe(2);
    expect(pool.stats()).toMatchObject({ sessions: 2, opened: 2 });
  });

  it('never reuses a session whose call timed out', async () => {
    pool = new McpSessionPool();
    const f = fixture();
    await pool.use('a', f.open, echo('warm'));
    const timedOut = pool.use('a', f.open, (s) => s.request('tools/call', { name: 'hang', arguments: {} }, { timeoutMs: 100 }));
    await expect(timedOut).rejects.toMatchObject({ code: -32001 });
    expect(pool.stats()).toMatchObject({ sessions: 0, discarded: 1 });
    await pool.use('a', f.open, echo('after'));
    expect(f.state.sessions).toBe(2);
    // Closed a moment later, so that the cancellation of the timed-out request reaches the server first.
    expect(f.state.closed).toBe(0);
    await new Promise((r) => setTimeout(r, 1100));
    expect(f.state.closed).toBe(1);
  });

  it('keeps a session whose call the server answered with an error', async () => {
    pool = new McpSessionPool();
    const f = fixture();
    await expect(pool.use('a', f.open, (s) => s.request('no/such/method', {}))).rejects.toMatchObject({ code: -32601 });
    await pool.use('a', f.open, echo('still'));
    expect(f.state.sessions).toBe(1);
  });

  it('does not run a call again when the server answered it with a JSON-RPC error that mentions HTTP 404', async () => {
    pool = new McpSessionPool();
    const f = fixture();
    await pool.use('a', f.open, echo('warm'));
    let runs = 0;
    const failing = async () => {
      runs++;
      throw new McpError(-32603, 'upstream API answered HTTP 404 for /orders/17');
    };
    await expect(pool.use('a', f.open, failing)).rejects.toThrow('HTTP 404');
    // The tool may have had effects: one run, on the session it went out on.
    expect(runs).toBe(1);
    expect(f.state.sessions).toBe(1);
  });

  it('keeps the session when the caller cancels its own call', async () => {
    pool = new McpSessionPool();
    const f = fixture();
    const abort = new AbortController();
    const call = pool.use('a', f.open, (s) => s.request('tools/call', { name: 'hang', arguments: {} }, { signal: abort.signal }), abort.signal);
    setTimeout(() => abort.abort(new McpFailure(McpFailureCode.Timeout, 'caller left')), 50);
    await expect(call).rejects.toBeDefined();
    await pool.use('a', f.open, echo('next'));
    expect(f.state.sessions).toBe(1);
  });

  it('closes idle sessions, too old ones, invalidated ones, and all on close', async () => {
    pool = new McpSessionPool({ idleMs: 100 });
    const f = fixture();
    await pool.use('idle', f.open, echo('x'));
    await new Promise((r) => setTimeout(r, 250));
    expect(pool.stats().sessions).toBe(0);
    expect(f.state.closed).toBe(1);

    const aged = new McpSessionPool({ maxAgeMs: 0 });
    await aged.use('k', f.open, echo('x'));
    await aged.use('k', f.open, echo('y'));
    await aged.close();
    expect(f.state.sessions).toBe(3);

    await pool.use('server-1:a', f.open, echo('x'));
    await pool.use('server-2:a', f.open, echo('x'));
    pool.invalidate('server-1:');
    expect(pool.stats().sessions).toBe(1);
    await pool.close();
    expect(f.state.closed).toBe(f.state.sessions);
    await expect(pool.use('k', f.open, echo('x'))).rejects.toThrow(/shutting down/);
  });

  it('forgets a session the server closed, and opens a new one for the next call', async () => {
    pool = new McpSessionPool();
    const f = fixture();
    let first: McpSession | undefined;
    await pool.use('a', f.open, async (s) => {
      first = s;
      return s.request('tools/call', { name: 'echo', arguments: { text: 'x' } });
    });
    await first!.close();
    expect(pool.stats().sessions).toBe(0);
    await pool.use('a', f.open, echo('y'));
    expect(f.state.sessions).toBe(2);
  });

  it('hands a failure to open to every caller waiting, and keeps nothing', async () => {
    pool = new McpSessionPool();
    const failing = () => Promise.reject(new McpFailure(McpFailureCode.ConnectionRefused, 'refused'));
    const calls = [1, 2].map(() => pool.use('a', failing, echo('x')));
    for (const c of calls) await expect(c).rejects.toThrow('refused');
    expect(pool.stats().sessions).toBe(0);
  });
});
