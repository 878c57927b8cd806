import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CallFixture, startCallFixture } from '../llm/call-fixtures';
import { createTestDatabase, TestDatabase } from '../support/database';
import type { Keep } from '../support/stand';

export const ROOT = resolve(__dirname, '..', '..');
export const API_MAIN = join(ROOT, 'dist/apps/api/apps/api/src/main.js');
export const WORKER_MAIN = join(ROOT, 'dist/apps/worker/apps/worker/src/main.js');

/**
 * Builds dist once when it is missing (a fresh clone after `npm ci` has it already: `prepare` builds).
 * A lock directory keeps two test files from building at the same time.
 */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(API_MAIN) && existsSync(WORKER_MAIN)) return;
  const lock = join(ROOT, '.build-lock');
  try {
    mkdirSync(lock);
  } catch {
    // Another test file is building: wait for it.
    const deadline = Date.now() + 300_000;
    while (existsSync(lock) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    if (existsSync(API_MAIN) && existsSync(WORKER_MAIN)) return;
    throw new Error('dist was not built by the other test file');
  }
  try {
    const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
  } finally {
    rmdirSync(lock);
  }
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  /** Resolves when a line of output matches, with the match; rejects if the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then the exit and how long it took. */
  stop(timeoutMs?: number): Promise<Exit & { ms: number }>;
  kill(): void;
}

/**
 * Only what a process needs from this environment: none of jest's (NODE_ENV=test, NODE_OPTIONS) nor the
 * registry's variables leak into the process under test.
 */
export function cleanEnv(env: Record<string, string>): Record<string, string> {
  const keep: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TMPDIR']) {
    const v = process.env[name];
    if (v !== undefined) keep[name] = v;
  }
  return { ...keep, ...env };
}

const running = new Set<AppProcess>();

/** Starts `command args` in the repository with exactly `env` (plus PATH and HOME). */
export function startProcess(command: string, args: string[], env: Record<string, string>): AppProcess {
  // A process group of its own: killing a failed test's process takes whatever it started (npm's child) too,
  // and nothing is left holding the output pipes open.
  const child = spawn(command, args, { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    listeners.forEach((l) => l());
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    listeners.forEach((l) => l());
  });
  const exited = new Promise<Exit>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  let done: Exit | undefined;
  const proc: AppProcess = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((res, rej) => {
        const check = () => {
          const m = (out + err).match(pattern);
          if (m) finish(() => res(m));
          else if (done) finish(() => rej(new Error(`exited (${JSON.stringify(done)}) before ${pattern}:\n${out}\n${err}`)));
        };
        const timer = setTimeout(() => finish(() => rej(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out}\n${err}`))), timeoutMs);
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        exited.then(check);
        check();
      });
    },
    async stop(timeoutMs = 20_000) {
      const started = Date.now();
      child.kill('SIGTERM');
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref());
      const result = await Promise.race([exited, timer]);
      if (result === 'timeout') {
        proc.kill();
        throw new Error(`still running ${timeoutMs} ms after SIGTERM:\n${out}\n${err}`);
      }
      return { ...result, ms: Date.now() - started };
    },
    kill() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    },
  };
  exited.then((e) => {
    done = e;
  });
  running.add(proc);
  return proc;
}

export const startApi = (env: Record<string, string>) => startProcess(process.execPath, [API_MAIN], env);
export const startWorker = (env: Record<string, string>) => startProcess(process.execPath, [WORKER_MAIN], env);

/** Kills whatever a test left running, children of npm included. */
export function killAll(): void {
  for (const p of running) p.kill();
  running.clear();
}

/** The URL an API process printed in its start banner. */
export async function listeningUrl(proc: AppProcess, timeoutMs = 30_000): Promise<string> {
  const m = await proc.waitFor(/MCP registry listening on (http:\/\/\S+)/, timeoutMs);
  return m[1];
}

/** What a test of the built processes stands on (see processStand). */
export interface ProcessStand {
  fixture: CallFixture;
  db: TestDatabase;
  /** A new directory for one process's DATA_DIR. */
  dataDir(name: string): string;
}

/**
 * What a test of the built processes (dist/) stands on, kept by a stand: dist/ built, a call fixture and a database
 * of its own. After the tests every process started is killed first; then the fixture is closed, the database
 * dropped and the data directories removed.
 */
export async function processStand(keep: Keep, dirPrefix: string): Promise<ProcessStand> {
  await ensureBuilt();
  const dirs = keep([] as string[], (made) => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const db = keep(await createTestDatabase(), (d) => d.drop());
  const fixture = keep(await startCallFixture());
  keep(running, killAll);
  const dataDir = (name: string) => {
    const d = mkdtempSync(join(tmpdir(), `${dirPrefix}-${name}-`));
    dirs.push(d);
    return d;
  };
  return { fixture, db, dataDir };
}
