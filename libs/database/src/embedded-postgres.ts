import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EmbeddedSocketServer } from './embedded-socket-server';

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
 * PostgreSQL in WebAssembly (PGlite), file-backed under DATA_DIR, served on a
 * loopback socket so that Prisma's pg adapter and BullMQ's PostgreSQL backend
 * reach it like any PostgreSQL server.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: EmbeddedSocketServer,
    private readonly lockPath: string,
    readonly url: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    mkdirSync(dataDir, { recursive: true });
    const lockPath = acquireLock(dataDir);
    try {
      const pgdata = join(dataDir, 'pgdata');
      const db = new PGlite({ dataDir: pgdata });
      await db.waitReady;
      const server = new EmbeddedSocketServer(db);
      const port = await server.start('127.0.0.1', 0);
      return new EmbeddedPostgres(db, server, lockPath, `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`);
    } catch (err) {
      if (existsSync(lockPath)) unlinkSync(lockPath);
      throw err;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop().catch(() => undefined);
    await this.db.close().catch(() => undefined);
    if (existsSync(this.lockPath)) unlinkSync(this.lockPath);
  }
}
