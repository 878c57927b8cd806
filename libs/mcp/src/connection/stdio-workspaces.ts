import { APP_CONFIG, AppConfig } from '@app/config';
import { Inject, Injectable } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** Server ids are UUIDs: nothing else names a directory here (no `..`, no separator). */
const SERVER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The working directories of stdio servers: `DATA_DIR/stdio/<serverId>`, the command's cwd and HOME. They belong
 * to this instance (another registry on the machine has its own DATA_DIR), are removed when the server is deleted
 * through this process, and those of servers that no longer exist (deleted through another process, or while
 * this one was down) are removed at start and, on a worker, at every sweep.
 */
@Injectable()
export class StdioWorkspaces {
  readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.root = join(config.dataDir, 'stdio');
  }

  /** The server's directory, made if missing. */
  prepare(serverId: string): string {
    const dir = this.dirOf(serverId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  }

  /** Removes the server's directory and everything in it (nothing if there is none). */
  async remove(serverId: string): Promise<void> {
    await rm(this.dirOf(serverId), { recursive: true, force: true });
  }

  /**
   * Removes the directories of servers that do not exist: `existing` says which of the ids found here still do.
   * Returns the ids removed.
   */
  async prune(existing: (ids: string[]) => Promise<Set<string>>): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const ids = names.filter((n) => SERVER_ID.test(n));
    if (ids.length === 0) return [];
    const keep = await existing(ids);
    const gone = ids.filter((id) => !keep.has(id));
    await Promise.all(gone.map((id) => rm(join(this.root, id), { recursive: true, force: true })));
    return gone;
  }

  private dirOf(serverId: string): string {
    if (!SERVER_ID.test(serverId)) throw new Error(`not a server id: ${JSON.stringify(serverId)}`);
    return join(this.root, serverId.toLowerCase());
  }
}
