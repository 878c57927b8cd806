import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ChildProcess, spawn } from 'node:child_process';
import { ByteBudget, formatBytes } from '../connection/byte-budget';
import { McpFailure, McpFailureCode } from '../connection/mcp-failure';
import type { Redactor } from '../connection/redaction';
import { StderrTail } from './stderr-tail';

export interface ChildProcessTransportOptions {
  command: string;
  args: string[];
  /** The child's whole environment: nothing of the registry's own environment is passed unless listed here. */
  env: Record<string, string>;
  cwd: string;
  /** Counts stdout bytes; the child is stopped when it is spent. */
  budget?: ByteBudget;
  /** Longest single stdout line accepted (default 16 MiB). */
  maxLineBytes?: number;
  stderrLimit?: number;
  /** How long a child may take to exit after its stdin is closed before it is killed (default 1 s). */
  exitGraceMs?: number;
}

/** Whether a parsed value has the shape of a JSON-RPC 2.0 message (request, notification or response). */
function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return false;
  if (typeof m.method === 'string') return true;
  return ('id' in m && ('result' in m || 'error' in m)) || ('error' in m && m.id === undefined);
}

/**
 * The stdio transport: runs the server's command as a child process in its own
 * process group, with its own environment and working directory, and speaks
 * newline-delimited JSON-RPC on its stdin and stdout. Stderr is kept (the last
 * few KiB) to explain failures. Anything on stdout that is not a JSON-RPC
 * message ends the exchange at once, as the stdio binding requires servers to
 * write only protocol messages there. Closing kills the whole process group,
 * so a server that started helpers of its own leaves nothing behind.
 */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly stderr: StderrTail;
  private buffer: Buffer[] = [];
  private bufferedBytes = 0;
  private lineNumber = 0;
  private closing = false;
  private closed = false;
  private exited?: Promise<void>;
  /** The first failure that ended the exchange, for the caller to report instead of a bare "connection closed". */
  failure?: McpFailure;
  exit?: { code: number | null; signal: NodeJS.Signals | null };

  constructor(private readonly options: ChildProcessTransportOptions) {
    this.stderr = new StderrTail(options.stderrLimit);
  }

  /** The kept tail of the child's stderr, with `redact` applied (told where the tail was cut). */
  stderrText(redact?: Redactor): string {
    return this.stderr.text(redact);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('ChildProcessTransport already started');
    const { command, args, env, cwd } = this.options;
    const child = spawn(command, args, {
      env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
      shell: false,
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (err: NodeJS.ErrnoException) => {
        const why = err.code === 'ENOENT' ? 'not found' : err.code === 'EACCES' ? 'not executable' : (err.code ?? err.message);
        const failure = new McpFailure(McpFailureCode.ProcessFailed, `the command "${command}" could not be started (${why})`);
        this.failure ??= failure;
        reject(failure);
      });
    });
    child.on('error', (err) => this.onerror?.(err));
    child.stdin!.on('error', () => undefined); // EPIPE after the child died: the exit handler reports it
    child.stdout!.on('data', (chunk: Buffer) => this.onStdout(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    child.once('exit', (code, signal) => {
      this.exit = { code, signal };
      if (!this.closing) {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        this.failure ??= new McpFailure(McpFailureCode.ProcessFailed, `the command ${how} before the exchange finished`);
      }
    });
    child.once('close', () => this.finish());
  }

  private onStdout(chunk: Buffer): void {
    if (this.closing) return;
    try {
      this.options.budget?.take(chunk.length);
    } catch (err) {
      this.fail(err as McpFailure);
      return;
    }
    let start = 0;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, start)) {
      this.buffer.push(chunk.subarray(start, i));
      const line = Buffer.concat(this.buffer).toString('utf8').replace(/\r$/, '');
      this.buffer = [];
      this.bufferedBytes = 0;
      start = i + 1;
      if (!this.deliver(line)) return;
    }
    if (start < chunk.length) {
      this.buffer.push(chunk.subarray(start));
      this.bufferedBytes += chunk.length - start;
      const max = this.options.maxLineBytes ?? 16 * 1024 * 1024;
      if (this.bufferedBytes > max) {
        this.fail(new McpFailure(McpFailureCode.LimitExceeded, `the server wrote a line longer than ${formatBytes(max)} to stdout`));
      }
    }
  }

  /** Hands one stdout line to the protocol; false when the line ended the exchange. */
  private deliver(line: string): boolean {
    this.lineNumber++;
    if (line.trim() === '') return true;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (!isJsonRpcMessage(parsed)) {
      this.fail(
        new McpFailure(
          McpFailureCode.ProtocolViolation,
          `line ${this.lineNumber} of the server's stdout is not a JSON-RPC message; a stdio server must write only protocol messages to stdout (logs belong on stderr)`,
        ),
      );
      return false;
    }
    this.onmessage?.(parsed);
    return true;
  }

  private fail(failure: McpFailure): void {
    this.failure ??= failure;
    this.onerror?.(failure);
    void this.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing || stdin.destroyed) {
      throw this.failure ?? new McpFailure(McpFailureCode.ProcessFailed, 'the server process is not running');
    }
    await new Promise<void>((resolve, reject) => {
      stdin.write(JSON.stringify(message) + '\n', (err) => (err ? reject(this.failure ?? err) : resolve()));
    });
  }

  /**
   * Ends the child: closes its stdin (a well-behaved server exits on EOF), then
   * signals the whole process group, SIGTERM first and SIGKILL after a grace.
   */
  async close(): Promise<void> {
    if (this.closing) {
      await this.exited;
      return;
    }
    this.closing = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.killGroup('SIGKILL');
      this.finish();
      return;
    }
    child.stdin?.end();
    const grace = this.options.exitGraceMs ?? 1000;
    if (!(await this.waitExit(grace))) {
      this.killGroup('SIGTERM');
      if (!(await this.waitExit(grace))) this.killGroup('SIGKILL');
    }
    // Helpers the server started may outlive it; the group signal reaches them too.
    this.killGroup('SIGKILL');
    await this.waitExit(grace);
    this.finish();
  }

  /** Kills the process group at once (timeouts and aborts: no grace). */
  kill(): void {
    this.closing = true;
    this.killGroup('SIGKILL');
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  private async waitExit(ms: number): Promise<boolean> {
    if (!this.exited) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return done;
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
