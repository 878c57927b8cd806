import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { EMBEDDED_SETTINGS } from './embedded-settings';

/** Refused start: another live process owns the embedded database of this DATA_DIR. */
export class DataDirLockedError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${pid}: the embedded database serves one process. ` +
        'Stop that process, choose another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.',
    );
    this.name = 'DataDirLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the DATA_DIR lock, or throws DataDirLockedError when a live process holds it. */
function acquireLock(dataDir: string): string {
  const lockPath = join(dataDir, 'embedded.lock');
  for (let i = 0; i < 3; i++) {
    try {
      writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return lockPath;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isFinite(pid) && pid !== process.pid && alive(pid)) throw new DataDirLockedError(dataDir, pid);
      // A stale lock from a process that died: take it over.
      unlinkSync(lockPath);
    }
  }
  throw new Error(`could not take the lock ${lockPath}`);
}

/**
 * Starts the database's thread. From the built files its entry is JavaScript; from the TypeScript sources
 * (the test runner) the thread compiles each module with swc as it loads it, as the test runner itself does.
 */
function startThread(workerData: { dataDir: string; socketPath?: string }): Worker {
  const built = join(__dirname, 'embedded-server.thread.js');
  if (existsSync(built)) return new Worker(built, { workerData });
  const source = join(__dirname, 'embedded-server.thread.ts');
  const bootstrap = `
    const fs = require('node:fs');
    const swc = require(${JSON.stringify(require.resolve('@swc/core'))});
    require.extensions['.ts'] = (module, filename) => {
      const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
        filename,
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
      });
      module._compile(code, filename);
    };
    require(${JSON.stringify(source)});
  `;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * Creates the database files of a new data directory (initdb) in a process of its own. PGlite runs initdb in a
 * second WebAssembly instance of PostgreSQL beside the database's, and a WebAssembly memory is never given back
 * while its process lives: run in the database's thread, initdb's 190 MiB stayed resident for as long as the
 * registry ran. Its process ends when the files are written, and the memory with it.
 */
const INITDB = `
  const { PGlite } = require(process.argv[1]);
  const [dataDir, settings] = [process.argv[2], JSON.parse(process.argv[3])];
  const startParams = [...PGlite.defaultStartParams, ...settings.flatMap((s) => ['-c', s])];
  PGlite.create({ dataDir, startParams }).then((db) => db.close()).catch((err) => {
    process.stderr.write(String(err && err.message ? err.message : err));
    process.exitCode = 1;
  });
`;
function initdb(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return Promise.resolve();
  const args = ['-e', INITDB, require.resolve('@electric-sql/pglite'), dataDir, JSON.stringify(EMBEDDED_SETTINGS)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`initdb of the embedded database failed: ${stderr.trim().slice(-500) || err.message}`));
      else resolve();
    });
  });
}

/**
 * The file PostgreSQL clients find a server's Unix domain socket at: `.s.PGSQL.<port>` in a directory. Unix
 * socket paths are limited to 107 bytes; a DATA_DIR deeper than that is served on loopback TCP instead.
 */
const SOCKET_PORT = 5432;
const SOCKET_PATH_MAX = 107;
function socketPathIn(dir: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const path = join(dir, `.s.PGSQL.${SOCKET_PORT}`);
  return Buffer.byteLength(path) <= SOCKET_PATH_MAX ? path : undefined;
}

/** The first answer of the thread: where it serves, or why it could not. */
function served(worker: Worker): Promise<{ port?: number; socketPath?: string }> {
  return new Promise((resolve, reject) => {
    const exited = (code: number) => reject(new Error(`the embedded database's thread exited (code ${code}) before it served`));
    worker.once('error', reject);
    worker.once('exit', exited);
    worker.once('message', (m: { port?: number; socketPath?: string; error?: string }) => {
      worker.off('error', reject);
      worker.off('exit', exited);
      if (m.port !== undefined || m.socketPath !== undefined) resolve(m);
      else reject(new Error(`the embedded database could not start: ${m.error ?? 'no reason given'}`));
    });
  });
}

/**
 * PostgreSQL in WebAssembly (PGlite), file-backed under DATA_DIR, served on a
 * Unix domain socket in DATA_DIR (only those who may read DATA_DIR can reach
 * it; loopback TCP where Unix sockets cannot serve) so that Prisma's pg adapter
 * and BullMQ's PostgreSQL backend reach it like any PostgreSQL server. It runs
 * on a thread of its own: the database's work (WebAssembly) and the sharing of
 * its one session between clients go on beside the process's own JavaScript
 * (HTTP, MCP sessions, the queue), on another core, and never wait for the
 * process's event loop.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly thread: Worker,
    private readonly lockPath: string,
    readonly url: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    mkdirSync(dataDir, { recursive: true });
    const lockPath = acquireLock(dataDir);
    let thread: Worker | undefined;
    try {
      const socketDir = resolve(dataDir);
      await initdb(join(dataDir, 'pgdata'));
      thread = startThread({ dataDir: join(dataDir, 'pgdata'), socketPath: socketPathIn(socketDir) });
      const at = await served(thread);
      // An unexpected end of the thread shows to every client as a closed connection; nothing to add here.
      thread.on('error', () => undefined);
      const url = at.socketPath
        ? `postgresql://postgres@localhost:${SOCKET_PORT}/postgres?host=${encodeURIComponent(socketDir)}`
        : `postgresql://postgres@127.0.0.1:${at.port}/postgres?sslmode=disable`;
      return new EmbeddedPostgres(thread, lockPath, url);
    } catch (err) {
      await thread?.terminate().catch(() => undefined);
      if (existsSync(lockPath)) unlinkSync(lockPath);
      throw err;
    }
  }

  /** Closes the clients' connections and the database (its files consistent), then ends the thread. */
  async stop(): Promise<void> {
    const thread = this.thread;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 30_000);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      thread.once('message', done);
      thread.once('exit', done);
      thread.postMessage('stop');
    });
    await thread.terminate().catch(() => undefined);
    if (existsSync(this.lockPath)) unlinkSync(this.lockPath);
  }
}
