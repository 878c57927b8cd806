import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestApp } from './app';

const ROOT = resolve(__dirname, '..', '..');

export interface WorkerProcess {
  pid: number;
  output(): string;
  /** Resolves when the output matches (the worker logs "worker ready" once it takes jobs). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGKILL to the whole process group: no shutdown, no lock released, as a crashed machine. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a real discovery worker process (apps/worker/src/main.ts, run from
 * source) on the test app's database, queue prefix and credentials key, with
 * extra environment (REDIS_URL, DISCOVERY_*).
 */
export function startWorkerProcess(t: TestApp, env: Record<string, string>): WorkerProcess {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcpr-worker-'));
  const child: ChildProcess = spawn(process.execPath, ['-r', './test/support/swc-register.cjs', 'apps/worker/src/main.ts'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      ADMIN_API_KEY: t.adminKey,
      CREDENTIALS_KEY: t.config.credentialsKey.key.toString('base64'),
      QUEUE_PREFIX: t.queuePrefix,
      SHUTDOWN_TIMEOUT_MS: '3000',
      ...(t.database.url ? { DATABASE_URL: t.database.url } : {}),
      ...env,
    },
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    listeners.forEach((l) => l());
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
    await exited;
  };
  return {
    pid: child.pid!,
    output: () => out,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`worker output did not match ${pattern} in ${timeoutMs} ms:\n${out.slice(-3000)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    kill: async () => {
      await signal('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
    stop: async () => {
      await signal('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
