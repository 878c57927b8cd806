import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteBudget } from '../connection/byte-budget';
import { McpFailureCode } from '../connection/mcp-failure';
import { ChildProcessTransport } from './child-process.transport';
import { StderrTail } from './stderr-tail';

const env = { PATH: process.env.PATH ?? '' };

/** A transport running `node -e script` in a fresh directory. */
function node(script: string, extra: Partial<ConstructorParameters<typeof ChildProcessTransport>[0]> = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'mcpr-child-'));
  const transport = new ChildProcessTransport({ command: process.execPath, args: ['-e', script], env, cwd, exitGraceMs: 300, ...extra });
  return { transport, cwd, cleanup: () => rmSync(cwd, { recursive: true, force: true }) };
}

function closed(t: ChildProcessTransport): Promise<void> {
  return new Promise((resolve) => {
    const previous = t.onclose;
    t.onclose = () => {
      previous?.();
      resolve();
    };
  });
}

/** Whether a process runs (a zombie, killed but not yet reaped by its new parent, does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

describe('the stdio transport', () => {
  it('exchanges newline-delimited JSON-RPC with the child', async () => {
    const { transport, cleanup } = node(`
      process.stdin.on('data', (d) => {
        const m = JSON.parse(d.toString());
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echoed: m.method } }) + '\\n');
      });`);
    const got = new Promise((resolve) => (transport.onmessage = resolve));
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(await got).toEqual({ jsonrpc: '2.0', id: 7, result: { echoed: 'ping' } });
    await transport.close();
    cleanup();
  });

  it('gives the child only the environment and working directory it was given', async () => {
    process.env.MCPR_SECRET_OF_THE_REGISTRY = 'must-not-leak';
    const { transport, cwd, cleanup } = node(
      `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'env', params: { env: process.env, cwd: process.cwd() } }) + '\\n')`,
      { env: { ...env, GIVEN: 'yes' } },
    );
    const got = new Promise<{ params: { env: Record<string, string>; cwd: string } }>((resolve) => (transport.onmessage = resolve as never));
    await transport.start();
    const { params } = await got;
    delete process.env.MCPR_SECRET_OF_THE_REGISTRY;
    expect(params.env.GIVEN).toBe('yes');
    expect(params.env.MCPR_SECRET_OF_THE_REGISTRY).toBeUndefined();
    expect(params.cwd).toBe(cwd);
    await transport.close();
    cleanup();
  });

  it('ends the exchange at the first stdout line that is not JSON-RPC', async () => {
    const { transport, cleanup } = node(`process.stdout.write('Server started on stdio\\n'); setInterval(() => {}, 1000);`);
    const done = closed(transport);
    await transport.start();
    await done;
    expect(transport.failure).toMatchObject({ code: McpFailureCode.ProtocolViolation, message: expect.stringContaining('line 1') });
    cleanup();
  });

  it('reports a child that exits, and one that cannot be started', async () => {
    const { transport, cleanup } = node(`process.stderr.write('boom\\n'); process.exit(4)`);
    const done = closed(transport);
    await transport.start();
    await done;
    expect(transport.failure?.message).toBe('the command exited with code 4 before the exchange finished');
    expect(transport.stderrText()).toBe('boom\n');
    cleanup();
    const missing = new ChildProcessTransport({ command: '/no/such/command', args: [], env, cwd: tmpdir() });
    await expect(missing.start()).rejects.toMatchObject({ code: McpFailureCode.ProcessFailed, message: 'the command "/no/such/command" could not be started (not found)' });
  });

  it('kills the whole process group on close, helpers that ignore SIGTERM included', async () => {
    const { transport, cleanup } = node(`
      const { spawn } = require('node:child_process');
      const helper = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
      process.on('SIGTERM', () => {});
      process.stdin.on('end', () => {}); // ignores EOF too
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'helper', params: { pid: helper.pid } }) + '\\n');
      setInterval(() => {}, 1000);`);
    const got = new Promise<{ params: { pid: number } }>((resolve) => (transport.onmessage = resolve as never));
    await transport.start();
    const helperPid = (await got).params.pid;
    const childPid = transport.pid!;
    expect(alive(helperPid)).toBe(true);
    await transport.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(childPid)).toBe(false);
    expect(alive(helperPid)).toBe(false);
    cleanup();
  });

  it('stops a child that floods stdout at the byte budget', async () => {
    const { transport, cleanup } = node(`const line = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { p: 'y'.repeat(10000) } }) + '\\n'; setInterval(() => { for (let i = 0; i < 50; i++) process.stdout.write(line) }, 1);`, {
      budget: new ByteBudget(256 * 1024),
    });
    transport.onmessage = () => undefined;
    const done = closed(transport);
    await transport.start();
    await done;
    expect(transport.failure).toMatchObject({ code: McpFailureCode.LimitExceeded, message: expect.stringContaining('256 KiB') });
    cleanup();
  });
});

describe('the kept stderr', () => {
  it('keeps only the last bytes and says how many were dropped', () => {
    const tail = new StderrTail(10);
    tail.push(Buffer.from('0123456789'));
    tail.push(Buffer.from('abcde'));
    expect(tail.text()).toBe('[5 earlier bytes dropped]\n56789abcde');
  });
});
