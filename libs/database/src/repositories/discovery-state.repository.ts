import { ServerRecord } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Server } from '../generated/prisma/client';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { Sql } from '../sql';
import { PRISMA, SQL } from '../tokens';
import { DiscoveryRunRepository, DroppedTool } from './discovery-run.repository';
import { SERVER_COLUMNS, toServerRecord } from './server.mapper';
import { DiscoveredListings, ServerListingRepository } from './server-listing.repository';
import { StoredCredentials } from './server.repository';
import { StoredTool, ToolChanges, ToolRepository } from './tool.repository';

/**
 * A select-list item that lets the statement's own transaction commit without waiting for the disk
 * (synchronous_commit off, for that transaction only; a proxy pooling transactions keeps it to them). For the
 * discovery's claim and result only: what they write is found again by discovering again, so a database crash
 * that loses the last fraction of a second of them costs a re-discovery at the next sweep and nothing else.
 * Other sessions see the write at commit, as always: readers are not affected.
 */
const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true) AS "asyncCommit"`;

/** A server with the stored secret material its connection needs: for the discovery worker only. */
export interface DiscoverySubject {
  server: ServerRecord;
  credentials: StoredCredentials;
}

export type ClaimResult =
  /** `claimedAt` is the database's time of the claim: a request made after it supersedes this discovery. */
  | { status: 'claimed'; subject: DiscoverySubject; claimedAt: Date; runId: string }
  /** Another worker holds the lease until `leaseUntil`. */
  | { status: 'busy'; leaseUntil: Date }
  | { status: 'disabled' }
  | { status: 'gone' };

/** What a successful discovery learned about the server itself. */
export interface DiscoveredIdentity {
  serverName: string | null;
  serverTitle: string | null;
  serverVersion: string | null;
  protocolVersion: string | null;
  instructions: string | null;
  capabilities: Record<string, unknown>;
  resourceCount: number | null;
  promptCount: number | null;
}

/** The run a claim opens: what asked for it, which attempt, and the error a run left open by a stopped worker gets. */
export interface OpenRun {
  trigger: string;
  attempt: number;
  orphanedRun: string;
}

export interface DiscoverySuccess {
  runId: string;
  identity: DiscoveredIdentity;
  tools: StoredTool[];
  dropped: DroppedTool[];
  durationMs: number;
  stderr: string | null;
  nextDiscoveryAt: Date;
  /**
   * A tenant's server: its tools are counted with those the tenant's other servers hold against the tenant's
   * limit (its own, else `maxTools`, the platform default). The platform's servers have none.
   */
  toolQuota?: { tenantId: string; maxTools: number };
  /**
   * The resources, resource templates and prompts listed, stored in the same transaction as the tools (see
   * ServerListingRepository.replaceAll). Absent: the server declares none and has none stored, nothing to write.
   */
  listings?: DiscoveredListings;
}

export interface DiscoveryFailure {
  runId: string;
  reason: string;
  durationMs: number;
  stderr: string | null;
  dropped?: DroppedTool[];
  /** The last attempt: the server goes to ERROR. Otherwise it stays DISCOVERING with the reason, to be tried again. */
  final: boolean;
  nextDiscoveryAt: Date | null;
}

/**
 * How recording a result went: written; `lost` (another worker holds the lease now: nothing written);
 * `superseded` (a newer discovery was asked for meanwhile, e.g. the URL changed: the result is not
 * written, the server stays DISCOVERING for the newer one); `disabled` (the server was disabled meanwhile:
 * it stays DISCONNECTED).
 */
export type RecordResult =
  /** `discoveredAt`: the server's last_discovered_at as written (a failure leaves it as it was: absent). */
  | { status: 'recorded'; changes: ToolChanges; discoveredAt?: Date }
  /** The tools would take the tenant past its tool limit: the server is in ERROR with `reason`, no tool was stored. */
  | { status: 'over-limit'; reason: string; limit: number }
  | { status: 'lost' }
  | { status: 'superseded' }
  | { status: 'disabled' };

export interface SweepCandidate {
  id: string;
  discoveryRequestedAt: Date | null;
  leaseOwner: string | null;
}

/**
 * The discovery worker's side of the servers table: the lease that keeps one
 * discovery per server at a time, the status machine's transitions, and the
 * sweeps that rebuild schedules and missed work from the database.
 */
@Injectable()
export class DiscoveryStateRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL) private readonly sql: Sql,
    private readonly tools: ToolRepository,
    private readonly runs: DiscoveryRunRepository,
    private readonly listings: ServerListingRepository,
  ) {}

  /**
   * Takes the server's discovery lease for `leaseMs` when nobody holds it (or
   * the holder's lease ran out: a worker that was killed), marks the server
   * DISCOVERING, closes any run a stopped worker left open (`orphanedRun` is
   * the error it gets) and opens this attempt's run, all in one statement: two
   * workers cannot both win, and the claim costs one round trip.
   */
  async claim(id: string, owner: string, leaseMs: number, run: OpenRun): Promise<ClaimResult> {
    if (!isUuid(id)) return { status: 'gone' };
    const runId = randomUUID();
    const taken = await this.sql.query<Server & { claimedAt: Date }>(
      `WITH claimed AS (
         UPDATE servers
            SET discovery_lease_owner = $2,
                discovery_lease_until = now() + make_interval(secs => $3),
                status = 'DISCOVERING',
                discovery_requested_at = COALESCE(discovery_requested_at, now()),
                updated_at = now()
          WHERE id = $1::uuid
            AND enabled
            AND (discovery_lease_until IS NULL OR discovery_lease_until < now() OR discovery_lease_owner = $2)
         RETURNING *),
       orphaned AS (
         UPDATE discovery_runs
            SET outcome = 'FAILED', finished_at = now(), error = $4,
                duration_ms = (EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::int
          WHERE server_id = $1::uuid AND outcome = 'RUNNING' AND EXISTS (SELECT 1 FROM claimed)),
       opened AS (
         INSERT INTO discovery_runs (id, server_id, trigger, attempt)
         SELECT $5::uuid, id, $6, $7 FROM claimed)
       SELECT ${SERVER_COLUMNS}, now()::timestamptz(3) AS "claimedAt", ${ASYNC_COMMIT} FROM claimed`,
      [id, owner, leaseMs / 1000, run.orphanedRun, runId, run.trigger, run.attempt],
      'discovery.claim',
    );
    if (taken.length === 1) {
      const row = taken[0];
      return {
        status: 'claimed',
        subject: { server: toServerRecord(row), credentials: { credentialsCipher: row.credentialsCipher, credentialsEnv: row.credentialsEnv } },
        claimedAt: row.claimedAt,
        runId,
      };
    }
    const rows = await this.sql.query<{ enabled: boolean; leaseUntil: Date | null }>(
      `SELECT enabled, discovery_lease_until AS "leaseUntil" FROM servers WHERE id = $1::uuid`,
      [id],
    );
    if (rows.length === 0) return { status: 'gone' };
    if (!rows[0].enabled) return { status: 'disabled' };
    return { status: 'busy', leaseUntil: rows[0].leaseUntil ?? new Date() };
  }

  /**
   * Locks the server row for recording an outcome and says whether this worker may: it must still hold
   * the lease, the server must still be enabled, and no newer discovery may have been asked for since
   * `claimedAt`. In the last two cases the run is closed and the lease given back, and nothing else moves.
   */
  private async lockForRecord(
    tx: Prisma.TransactionClient,
    id: string,
    owner: string,
    claimedAt: Date,
    runId: string,
    run: { durationMs: number; error?: string | null; stderr: string | null },
  ): Promise<{ status: 'lost' | 'superseded' | 'disabled' } | undefined> {
    const rows = await tx.$queryRaw<{ enabled: boolean; newer: boolean }[]>`
      SELECT enabled, COALESCE(discovery_requested_at > ${claimedAt}, false) AS newer
        FROM servers WHERE id = ${id}::uuid AND discovery_lease_owner = ${owner} FOR UPDATE`;
    if (rows.length === 0) return { status: 'lost' };
    const [{ enabled, newer }] = rows;
    if (enabled && !newer) return undefined;
    const why = !enabled ? 'the server was disabled during this discovery' : 'a newer discovery was asked for during this one';
    await this.runs.finish(runId, { outcome: 'CANCELLED', durationMs: run.durationMs, error: run.error ? `${why}; it had failed: ${run.error}` : why, stderr: run.stderr }, tx);
    await tx.server.update({ where: { id }, data: { discoveryLeaseOwner: null, discoveryLeaseUntil: null } });
    return { status: !enabled ? 'disabled' : 'superseded' };
  }

  /**
   * Records a successful discovery: the tool list replaced, the server
   * CONNECTED with what it said about itself, the run closed with what changed.
   * Nothing is written when the lease was lost (a discovery that outlived its
   * lease cannot overwrite a newer one), when the server was disabled, or when
   * a newer discovery was asked for meanwhile.
   *
   * The usual case is one statement: the server row's update is the gate (it
   * matches only while this worker holds the lease of an enabled server that
   * nobody asked to discover again), and the tools, the run and the changes
   * hang off it. Tools whose definition and place are unchanged are not
   * rewritten, so a discovery that found nothing new writes no tool rows.
   * When the gate does not match, the transaction below finds out why.
   */
  async succeed(id: string, owner: string, claimedAt: Date, result: DiscoverySuccess): Promise<RecordResult> {
    // A tenant's tools are counted against its limit under a lock of the tenant: the transaction below.
    // So are the lists besides tools: written beside them, in one transaction.
    if (result.toolQuota || result.listings) return this.succeedInTransaction(id, owner, claimedAt, result);
    const i = result.identity;
    const t = result.tools;
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    const rows = await this.sql.query<{ recorded: boolean; added: string[]; removed: string[]; changed: string[]; discoveredAt: Date }>(
      `WITH gate AS (
         UPDATE servers
            SET status = 'CONNECTED', status_reason = NULL,
                server_name = $4, server_title = $5, server_version = $6, protocol_version = $7, instructions = $8,
                capabilities = $9::jsonb, tool_count = $10, resource_count = $11, prompt_count = $12,
                last_discovered_at = now(), next_discovery_at = $13,
                discovery_requested_at = NULL, discovery_lease_owner = NULL, discovery_lease_until = NULL, updated_at = now()
          WHERE id = $1::uuid AND discovery_lease_owner = $2 AND enabled
            AND NOT COALESCE(discovery_requested_at > $3, false)
         RETURNING id, last_discovered_at),
       incoming AS (
         SELECT * FROM unnest($14::text[], $15::text[], $16::text[], $17::jsonb[], $18::jsonb[], $19::jsonb[], $20::text[])
           WITH ORDINALITY AS t(name, title, description, input_schema, output_schema, annotations, hash, position)),
       old AS (SELECT name, hash, position FROM tools WHERE server_id = $1::uuid),
       upserted AS (
         INSERT INTO tools (id, server_id, name, title, description, input_schema, output_schema, annotations, hash, position)
         SELECT gen_random_uuid(), $1::uuid, name, title, description, input_schema, output_schema, annotations, hash, position - 1
           FROM incoming WHERE EXISTS (SELECT 1 FROM gate)
         ON CONFLICT (server_id, name) DO UPDATE
            SET title = excluded.title, description = excluded.description, input_schema = excluded.input_schema,
                output_schema = excluded.output_schema, annotations = excluded.annotations, hash = excluded.hash,
                position = excluded.position
          WHERE tools.hash IS DISTINCT FROM excluded.hash OR tools.position IS DISTINCT FROM excluded.position
         RETURNING 1),
       deleted AS (
         DELETE FROM tools WHERE server_id = $1::uuid AND EXISTS (SELECT 1 FROM gate) AND name <> ALL($14::text[])
         RETURNING 1),
       changes AS (
         SELECT COALESCE((SELECT array_agg(n.name ORDER BY n.position) FROM incoming n
                           WHERE NOT EXISTS (SELECT 1 FROM old o WHERE o.name = n.name)), '{}') AS added,
                COALESCE((SELECT array_agg(o.name ORDER BY o.position) FROM old o WHERE o.name <> ALL($14::text[])), '{}') AS removed,
                COALESCE((SELECT array_agg(n.name ORDER BY n.position) FROM incoming n JOIN old o ON o.name = n.name
                           WHERE o.hash <> n.hash), '{}') AS changed),
       closed AS (
         UPDATE discovery_runs r
            SET outcome = 'SUCCEEDED', finished_at = now(), duration_ms = $21, error = NULL, tool_count = $10,
                added = c.added, removed = c.removed, changed = c.changed, dropped = $22::jsonb, stderr = $23
           FROM changes c
          WHERE r.id = $24::uuid AND r.outcome = 'RUNNING' AND EXISTS (SELECT 1 FROM gate))
       SELECT EXISTS (SELECT 1 FROM gate) AS recorded, c.added, c.removed, c.changed,
              (SELECT last_discovered_at FROM gate) AS "discoveredAt",
              (SELECT count(*) FROM upserted) + (SELECT count(*) FROM deleted) AS written, ${ASYNC_COMMIT}
         FROM changes c`,
      [
        id,
        owner,
        claimedAt,
        i.serverName,
        i.serverTitle,
        i.serverVersion,
        i.protocolVersion,
        i.instructions,
        JSON.stringify(i.capabilities),
        t.length,
        i.resourceCount,
        i.promptCount,
        result.nextDiscoveryAt,
        t.map((x) => x.name),
        t.map((x) => x.title ?? null),
        t.map((x) => x.description ?? null),
        t.map((x) => JSON.stringify(x.inputSchema)),
        t.map((x) => json(x.outputSchema)),
        t.map((x) => json(x.annotations)),
        t.map((x) => x.hash),
        Math.round(result.durationMs),
        JSON.stringify(result.dropped),
        result.stderr,
        result.runId,
      ],
      'discovery.succeed',
    );
    const [row] = rows;
    if (row?.recorded) return { status: 'recorded', changes: { added: row.added, removed: row.removed, changed: row.changed }, discoveredAt: row.discoveredAt };
    return this.succeedInTransaction(id, owner, claimedAt, result);
  }

  /** succeed() as an interactive transaction: the path that tells why a result may not be written. */
  private async succeedInTransaction(id: string, owner: string, claimedAt: Date, result: DiscoverySuccess): Promise<RecordResult> {
    return this.prisma.$transaction(
      async (tx) => {
        const refused = await this.lockForRecord(tx, id, owner, claimedAt, result.runId, result);
        if (refused) return refused;
        if (result.toolQuota) {
          const over = await this.overToolLimit(tx, id, result.toolQuota, result.tools.length);
          if (over) {
            await this.runs.finish(result.runId, { outcome: 'FAILED', durationMs: result.durationMs, error: over.reason, dropped: result.dropped, stderr: result.stderr }, tx);
            await tx.server.update({
              where: { id },
              data: {
                status: 'ERROR',
                statusReason: over.reason,
                nextDiscoveryAt: result.nextDiscoveryAt,
                discoveryRequestedAt: null,
                discoveryLeaseOwner: null,
                discoveryLeaseUntil: null,
              },
            });
            return { status: 'over-limit', reason: over.reason, limit: over.limit };
          }
        }
        const changes = await this.tools.replaceAll(tx, id, result.tools);
        if (result.listings) await this.listings.replaceAll(tx, id, result.listings);
        const i = result.identity;
        // The database's clock, as in succeed(): the watch hand-over compares values written by both.
        const [{ discoveredAt }] = await tx.$queryRaw<{ discoveredAt: Date }[]>`SELECT now()::timestamptz(3) AS "discoveredAt"`;
        await tx.server.update({
          where: { id },
          data: {
            status: 'CONNECTED',
            statusReason: null,
            serverName: i.serverName,
            serverTitle: i.serverTitle,
            serverVersion: i.serverVersion,
            protocolVersion: i.protocolVersion,
            instructions: i.instructions,
            capabilities: i.capabilities as Prisma.InputJsonValue,
            toolCount: result.tools.length,
            resourceCount: i.resourceCount,
            promptCount: i.promptCount,
            lastDiscoveredAt: discoveredAt,
            nextDiscoveryAt: result.nextDiscoveryAt,
            discoveryRequestedAt: null,
            discoveryLeaseOwner: null,
            discoveryLeaseUntil: null,
          },
        });
        await this.runs.finish(
          result.runId,
          {
            outcome: 'SUCCEEDED',
            durationMs: result.durationMs,
            toolCount: result.tools.length,
            ...changes,
            dropped: result.dropped,
            stderr: result.stderr,
          },
          tx,
        );
        return { status: 'recorded', changes, discoveredAt };
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  }

  /**
   * Whether `incoming` tools on this server would take its tenant past its tool limit. The tenant's row is locked
   * first, so that two discoveries of one tenant's servers count one after the other (each statement after the
   * lock reads what the other committed): together they cannot pass the limit.
   */
  private async overToolLimit(
    tx: Prisma.TransactionClient,
    id: string,
    quota: { tenantId: string; maxTools: number },
    incoming: number,
  ): Promise<{ reason: string; limit: number } | undefined> {
    const [tenant] = await tx.$queryRaw<{ max: number | null }[]>`
      SELECT (limits->>'maxTools')::int AS max FROM tenants WHERE id = ${quota.tenantId}::uuid FOR UPDATE`;
    const limit = tenant?.max ?? quota.maxTools;
    const [{ held }] = await tx.$queryRaw<{ held: number }[]>`
      SELECT count(*)::int AS held FROM tools t JOIN servers s ON s.id = t.server_id
       WHERE s.tenant_id = ${quota.tenantId}::uuid AND s.id <> ${id}::uuid`;
    if (held + incoming <= limit) return undefined;
    return {
      limit,
      reason:
        `the server offers ${incoming} tools and the tenant's other servers hold ${held}: together more than the tenant's limit of ${limit} tools ` +
        '(maxTools); none of this discovery was stored. Remove servers or tools, or ask the administrator to raise the limit',
    };
  }

  /** Records a failed attempt: ERROR on the last one, else DISCOVERING with the reason until the retry. */
  async fail(id: string, owner: string, claimedAt: Date, failure: DiscoveryFailure): Promise<Exclude<RecordResult, { status: 'over-limit' }>> {
    return this.prisma.$transaction(async (tx) => {
      const refused = await this.lockForRecord(tx, id, owner, claimedAt, failure.runId, { ...failure, error: failure.reason });
      if (refused) return refused;
      await this.runs.finish(
        failure.runId,
        { outcome: 'FAILED', durationMs: failure.durationMs, error: failure.reason, dropped: failure.dropped, stderr: failure.stderr },
        tx,
      );
      await tx.server.update({
        where: { id },
        data: failure.final
          ? {
              status: 'ERROR',
              statusReason: failure.reason,
              nextDiscoveryAt: failure.nextDiscoveryAt,
              discoveryRequestedAt: null,
              discoveryLeaseOwner: null,
              discoveryLeaseUntil: null,
            }
          : { status: 'DISCOVERING', statusReason: failure.reason, discoveryLeaseOwner: null, discoveryLeaseUntil: null },
      });
      return { status: 'recorded', changes: { added: [], removed: [], changed: [] } };
    });
  }

  /**
   * Of the servers given, each with when its last discovery took it, those a discovery was asked for since
   * that nothing runs yet: requests made just after that discovery recorded its result, while its job was
   * still finishing (the queue joined them to the finishing job). One statement for all of them.
   */
  async askedAgainAmong(claims: readonly { serverId: string; since: Date }[]): Promise<Set<string>> {
    if (claims.length === 0) return new Set();
    const rows = await this.sql.query<{ id: string }>(
      `SELECT s.id FROM servers s
         JOIN unnest($1::uuid[], $2::timestamptz[]) AS c(id, since) ON s.id = c.id
        WHERE s.enabled AND s.status = 'DISCOVERING'
          AND s.discovery_lease_owner IS NULL AND s.discovery_requested_at > c.since`,
      [claims.map((c) => c.serverId), claims.map((c) => c.since)],
      'discovery.asked-again',
    );
    return new Set(rows.map((r) => r.id));
  }

  /** The server's tenant (null: a platform server, or no such server). */
  async tenantOf(id: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    const rows = await this.sql.query<{ tenantId: string | null }>(`SELECT tenant_id AS "tenantId" FROM servers WHERE id = $1::uuid`, [id], 'discovery.tenant-of');
    return rows[0]?.tenantId ?? null;
  }

  /** When the server was last discovered successfully, by any worker (null: never, or gone). */
  async lastDiscoveredAt(id: string): Promise<Date | null> {
    if (!isUuid(id)) return null;
    const rows = await this.sql.query<{ at: Date | null }>(`SELECT last_discovered_at AS at FROM servers WHERE id = $1::uuid`, [id]);
    return rows[0]?.at ?? null;
  }

  /**
   * A discovery was asked for: the server shows DISCOVERING from now on (an
   * enabled server only). A discovery running now started before this ask, so
   * it will not be recorded as the answer to it (see succeed()).
   */
  async markRequested(id: string): Promise<boolean> {
    return (await this.markRequestedMany([id])).size > 0;
  }

  /**
   * Discoveries were asked for: each enabled server among `ids` shows DISCOVERING, queued, stamped with the
   * database's clock (the clock the worker's claim is stamped with, so the result gate compares like with like,
   * whatever the asking host's clock says). Returns the servers stamped and when (also their updatedAt).
   */
  async markRequestedMany(ids: string[]): Promise<Map<string, Date>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<{ id: string; at: Date }[]>`
      UPDATE servers SET status = 'DISCOVERING', status_reason = 'discovery queued', discovery_requested_at = now(), updated_at = now()
       WHERE id = ANY(${valid}::uuid[]) AND enabled
      RETURNING id, discovery_requested_at AS at`;
    return new Map(rows.map((r) => [r.id, r.at]));
  }

  /** A disabled server is not discovered: DISCONNECTED, nothing scheduled. */
  async markDisconnected(id: string): Promise<void> {
    await this.prisma.server.updateMany({
      where: { id, enabled: false },
      data: { status: 'DISCONNECTED', statusReason: null, nextDiscoveryAt: null, discoveryRequestedAt: null },
    });
  }

  /** Ends a discovery that cannot finish (its worker stopped too often): ERROR with the reason. */
  async markError(id: string, reason: string, nextDiscoveryAt: Date | null): Promise<void> {
    await this.prisma.server.updateMany({
      where: { id, status: 'DISCOVERING' },
      data: {
        status: 'ERROR',
        statusReason: reason,
        nextDiscoveryAt,
        discoveryRequestedAt: null,
        discoveryLeaseOwner: null,
        discoveryLeaseUntil: null,
      },
    });
  }

  /**
   * Marks up to `limit` enabled servers whose next discovery is due (or was
   * never scheduled) as DISCOVERING and returns their ids. Concurrent sweeps
   * skip each other's rows.
   */
  async takeDue(limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE servers
         SET status = 'DISCOVERING', discovery_requested_at = now(), updated_at = now()
       WHERE id IN (
         SELECT id FROM servers
          WHERE enabled
            AND status <> 'DISCOVERING'
            AND discovery_lease_owner IS NULL
            AND (next_discovery_at IS NULL OR next_discovery_at <= now())
          ORDER BY next_discovery_at NULLS FIRST
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    return rows.map((r) => r.id);
  }

  /**
   * DISCOVERING servers no worker holds: each must have a job in the queue. A server asked for within the last
   * 3 seconds is left to the request that is queueing it (its enqueue is bounded well within that), so
   * that a sweep running at that moment does not queue its discovery first under the sweep's own trigger.
   */
  async listWaiting(limit: number): Promise<SweepCandidate[]> {
    return this.prisma.$queryRaw<SweepCandidate[]>`
      SELECT id, discovery_requested_at AS "discoveryRequestedAt", discovery_lease_owner AS "leaseOwner"
        FROM servers
       WHERE enabled AND status = 'DISCOVERING' AND discovery_lease_owner IS NULL
         AND COALESCE(discovery_requested_at, updated_at) < now() - interval '3 seconds'
       ORDER BY discovery_requested_at NULLS FIRST
       LIMIT ${limit}`;
  }

  /** Servers whose lease ran out: the worker holding it stopped in the middle of a discovery. */
  async listExpiredLeases(limit: number): Promise<SweepCandidate[]> {
    return this.prisma.$queryRaw<SweepCandidate[]>`
      SELECT id, discovery_requested_at AS "discoveryRequestedAt", discovery_lease_owner AS "leaseOwner"
        FROM servers
       WHERE discovery_lease_until < now()
       ORDER BY discovery_lease_until
       LIMIT ${limit}`;
  }

  /** Takes back one expired lease (if it is still the same expired one); true when taken. */
  async reclaimExpiredLease(id: string, owner: string): Promise<boolean> {
    const n = await this.prisma.$executeRaw`
      UPDATE servers SET discovery_lease_owner = NULL, discovery_lease_until = NULL, updated_at = now()
       WHERE id = ${id}::uuid AND discovery_lease_owner = ${owner} AND discovery_lease_until < now()`;
    return n > 0;
  }

  /** Of these server ids, the ones that still exist and are enabled. */
  async enabledAmong(ids: string[]): Promise<Set<string>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return new Set();
    const rows = await this.prisma.server.findMany({ where: { id: { in: valid }, enabled: true }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  /** Disabled servers not yet DISCONNECTED (and not mid-discovery): marks them and returns their ids. */
  async disconnectDisabled(limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE servers
         SET status = 'DISCONNECTED', status_reason = NULL, next_discovery_at = NULL, discovery_requested_at = NULL, updated_at = now()
       WHERE id IN (
         SELECT id FROM servers
          WHERE NOT enabled AND status <> 'DISCONNECTED' AND discovery_lease_owner IS NULL
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    return rows.map((r) => r.id);
  }
}
