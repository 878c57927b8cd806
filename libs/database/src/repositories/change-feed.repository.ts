import { Inject, Injectable } from '@nestjs/common';
import { Sql } from '../sql';
import { SQL } from '../tokens';

/** One row of the change log: a committed change to a server or its tools. */
export interface ChangeLogRow {
  id: bigint;
  serverId: string;
  /** The server's owner (null: the platform's). */
  tenantId: string | null;
  /** Only the server's discovery row (server_discovery) moved: lease, schedule, request time, retry reason. */
  bookkeeping: boolean;
}

/** One row of the change log for a virtual server's own change (made, changed, its members, deleted). */
export interface VirtualServerChangeLogRow {
  id: bigint;
  virtualServerId: string;
  /** The virtual server's owner (null: the platform's). */
  tenantId: string | null;
}

export interface ChangeLogPage {
  changes: ChangeLogRow[];
  /** Changes of virtual servers (their ids are of the same log as those of `changes`). */
  virtualServerChanges: VirtualServerChangeLogRow[];
  /** The xmin to pass next time. */
  xmin: bigint;
}

/**
 * The change feed's durable log (`server_changes`, appended by the triggers on `servers`, `server_discovery` and
 * `tools` in the writer's own transaction, see migrations 20261204050000 and 20261205010000, and on
 * `virtual_servers` and their members, see 20261205020000). Read by transaction ids: a reader that remembers the
 * oldest transaction still running when it last looked (pg_snapshot_xmin) misses no change that commits later,
 * whatever order the ids were handed out in.
 */
@Injectable()
export class ChangeFeedRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  /** The oldest transaction still running now: changes of older transactions are all visible to a read that follows. */
  async currentXmin(): Promise<bigint> {
    const rows = await this.sql.query<{ xmin: string }>(`SELECT (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint AS xmin`);
    return BigInt(rows[0].xmin);
  }

  /**
   * Changes written by transactions at or after `xmin` (some may have been seen already: the caller skips
   * their ids), and the xmin to pass next time. Read in one statement, so the xmin and the rows share a snapshot.
   */
  async changesSince(xmin: bigint): Promise<ChangeLogPage> {
    const rows = await this.sql.query<{
      xmin: string;
      id: string | null;
      server_id: string | null;
      virtual_server_id: string | null;
      tenant_id: string | null;
      bookkeeping: boolean | null;
    }>(
      `SELECT x.xmin, c.id, c.server_id, c.virtual_server_id, c.tenant_id, c.bookkeeping
         FROM (SELECT (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint AS xmin) x
         LEFT JOIN server_changes c ON c.txid >= $1::bigint
        ORDER BY c.id`,
      [xmin.toString()],
      'change-feed.since',
    );
    const changes: ChangeLogRow[] = [];
    const virtualServerChanges: VirtualServerChangeLogRow[] = [];
    for (const r of rows) {
      if (r.id === null) continue;
      if (r.server_id !== null) changes.push({ id: BigInt(r.id), serverId: r.server_id, tenantId: r.tenant_id, bookkeeping: r.bookkeeping === true });
      else if (r.virtual_server_id !== null) virtualServerChanges.push({ id: BigInt(r.id), virtualServerId: r.virtual_server_id, tenantId: r.tenant_id });
    }
    return { changes, virtualServerChanges, xmin: BigInt(rows[0].xmin) };
  }

  /** Drops changes older than `ageMs`; returns how many. */
  async prune(ageMs: number): Promise<number> {
    const rows = await this.sql.query<{ n: number }>(
      `WITH gone AS (DELETE FROM server_changes WHERE at < now() - make_interval(secs => $1) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [ageMs / 1000],
    );
    return rows[0].n;
  }
}
