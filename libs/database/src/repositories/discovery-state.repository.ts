import { ServerRecord } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { PRISMA } from '../tokens';
import { DiscoveryRunRepository, DroppedTool } from './discovery-run.repository';
import { toServerRecord } from './server.mapper';
import { StoredCredentials } from './server.repository';
import { StoredTool, ToolChanges, ToolRepository } from './tool.repository';

/** A server with the stored secret material its connection needs: for the discovery worker only. */
export interface DiscoverySubject {
  server: ServerRecord;
  credentials: StoredCredentials;
}

export type ClaimResult =
  /** `claimedAt` is the database's time of the claim: a request made after it supersedes this discovery. */
  | { status: 'claimed'; subject: DiscoverySubject; claimedAt: Date }
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

export interface DiscoverySuccess {
  runId: string;
  identity: DiscoveredIdentity;
  tools: StoredTool[];
  dropped: DroppedTool[];
  durationMs: number;
  stderr: string | null;
  nextDiscoveryAt: Date;
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
  | { status: 'recorded'; changes: ToolChanges }
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
    private readonly tools: ToolRepository,
    private readonly runs: DiscoveryRunRepository,
  ) {}

  private async subject(id: string): Promise<DiscoverySubject | null> {
    const row = await this.prisma.server.findUnique({ where: { id } });
    if (!row) return null;
    return { server: toServerRecord(row), credentials: { credentialsCipher: row.credentialsCipher, credentialsEnv: row.credentialsEnv } };
  }

  async load(id: string): Promise<DiscoverySubject | null> {
    return isUuid(id) ? this.subject(id) : null;
  }

  /**
   * Takes the server's discovery lease for `leaseMs` when nobody holds it (or
   * the holder's lease ran out: a worker that was killed), and marks the server
   * DISCOVERING. The check and the take are one statement, so two workers
   * cannot both win.
   */
  async claim(id: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    if (!isUuid(id)) return { status: 'gone' };
    const taken = await this.prisma.$queryRaw<{ id: string; claimedAt: Date }[]>`
      UPDATE servers
         SET discovery_lease_owner = ${owner},
             discovery_lease_until = now() + make_interval(secs => ${leaseMs / 1000}),
             status = 'DISCOVERING',
             discovery_requested_at = COALESCE(discovery_requested_at, now()),
             updated_at = now()
       WHERE id = ${id}::uuid
         AND enabled
         AND (discovery_lease_until IS NULL OR discovery_lease_until < now() OR discovery_lease_owner = ${owner})
      RETURNING id, now() AS "claimedAt"`;
    if (taken.length === 1) {
      const subject = await this.subject(id);
      return subject ? { status: 'claimed', subject, claimedAt: taken[0].claimedAt } : { status: 'gone' };
    }
    const row = await this.prisma.server.findUnique({ where: { id }, select: { enabled: true, discoveryLeaseUntil: true } });
    if (!row) return { status: 'gone' };
    if (!row.enabled) return { status: 'disabled' };
    return { status: 'busy', leaseUntil: row.discoveryLeaseUntil ?? new Date() };
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
  ): Promise<RecordResult | undefined> {
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
   * Records a successful discovery in one transaction: the tool list replaced,
   * the server CONNECTED with what it said about itself, the run closed with
   * what changed. Nothing is written when the lease was lost (a discovery that
   * outlived its lease cannot overwrite a newer one), when the server was
   * disabled, or when a newer discovery was asked for meanwhile.
   */
  async succeed(id: string, owner: string, claimedAt: Date, result: DiscoverySuccess): Promise<RecordResult> {
    return this.prisma.$transaction(
      async (tx) => {
        const refused = await this.lockForRecord(tx, id, owner, claimedAt, result.runId, result);
        if (refused) return refused;
        const changes = await this.tools.replaceAll(tx, id, result.tools);
        const i = result.identity;
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
            lastDiscoveredAt: new Date(),
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
        return { status: 'recorded', changes };
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  }

  /** Records a failed attempt: ERROR on the last one, else DISCOVERING with the reason until the retry. */
  async fail(id: string, owner: string, claimedAt: Date, failure: DiscoveryFailure): Promise<RecordResult> {
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
   * Whether a discovery was asked for after `since` that nothing runs yet: a
   * request made just after this worker recorded its result, while its job was
   * still finishing (the queue joined that request to the finishing job).
   */
  async askedAgainSince(id: string, since: Date): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id FROM servers
       WHERE id = ${id}::uuid AND enabled AND status = 'DISCOVERING'
         AND discovery_lease_owner IS NULL AND discovery_requested_at > ${since}`;
    return rows.length > 0;
  }

  /** Gives the lease back without a verdict (the job was handed back to the queue). */
  async release(id: string, owner: string): Promise<void> {
    await this.prisma.server.updateMany({ where: { id, discoveryLeaseOwner: owner }, data: { discoveryLeaseOwner: null, discoveryLeaseUntil: null } });
  }

  /**
   * A discovery was asked for: the server shows DISCOVERING from now on (an
   * enabled server only). A discovery running now started before this ask, so
   * it will not be recorded as the answer to it (see succeed()).
   */
  async markRequested(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const n = await this.prisma.$executeRaw`
      UPDATE servers SET status = 'DISCOVERING', discovery_requested_at = now(), updated_at = now()
       WHERE id = ${id}::uuid AND enabled`;
    return n > 0;
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

  /** DISCOVERING servers no worker holds: each must have a job in the queue. */
  async listWaiting(limit: number): Promise<SweepCandidate[]> {
    return this.prisma.$queryRaw<SweepCandidate[]>`
      SELECT id, discovery_requested_at AS "discoveryRequestedAt", discovery_lease_owner AS "leaseOwner"
        FROM servers
       WHERE enabled AND status = 'DISCOVERING' AND discovery_lease_owner IS NULL
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
