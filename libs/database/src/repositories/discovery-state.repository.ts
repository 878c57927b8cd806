import { ServerRecord, TOOL_FIELDS, ToolPolicy } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { Sql, TransactionQuery } from '../sql';
import { PRISMA, SQL } from '../tokens';
import { AuditEventInput, auditInsert } from './audit.repository';
import type { DroppedTool, ToolChange } from './discovery-run.repository';
import { definitionJson } from './effective-tools';
import { ServerEventInput, serverEventInsert } from './server-events';
import { SERVER_COLUMNS, ServerRow, toServerRecord } from './server.mapper';
import { DiscoveredListings, ServerListingRepository } from './server-listing.repository';
import { StoredCredentials } from './server.repository';
import { StoredTool, ToolChanges } from './tool.repository';

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
  /** sha256 of the listing's canonical JSON (each tool's name to its definition's hash). */
  toolsHash: string;
  /**
   * A tenant's server: its tools are counted with those the tenant's other servers hold against the tenant's
   * limit (its own, else `maxTools`, the platform default). The platform's servers have none.
   */
  toolQuota?: { tenantId: string; maxTools: number };
  /**
   * The resources, resource templates and prompts listed, stored in the same transaction as the tools (see
   * ServerListingRepository.replaceAll; their counts and reasons go into the server row with the tools' record).
   * Absent: the server declares none and has none stored, nothing to write.
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

/** What recording a result needs of the server row it locked. */
interface LockedServer {
  tenantId: string | null;
  name: string;
  toolPolicy: ToolPolicy;
  /** No discovery of this server has succeeded before: under `pinned`, this one's tools are approved. */
  firstDiscovery: boolean;
}

interface RecordedTools {
  added: string[];
  removed: string[];
  changed: string[];
  held: string[];
  changes: ToolChange[];
  discoveredAt: Date;
}

/** A server event names at most this many tools; the count says how many there were. */
const EVENT_TOOLS = 100;

/**
 * The one statement that records a discovery's tools (inside succeed()'s transaction, under the server's lock).
 * Each listed tool is decided: under `open`, and under `pinned` on the server's first discovery, approved; else a
 * new tool is pending, an unchanged one keeps its decision, and a changed one is pending unless it is back to the
 * definition approved before. A definition that becomes pending keeps the approved one beside it (the diff's
 * "before"); an approved one needs nothing beside it.
 */
const RECORD_TOOLS = `WITH incoming AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[], $7::jsonb[], $8::jsonb[], $9::jsonb[], $10::jsonb[], $11::text[])
      WITH ORDINALITY AS n(name, title, description, input_schema, output_schema, annotations, icons, execution, meta, hash, position)),
  old AS (SELECT name, hash, approval, approved_hash, position FROM tools WHERE server_id = $1::uuid),
  compared AS (
    SELECT n.*, o.name IS NULL AS is_new, o.hash AS old_hash, o.hash IS DISTINCT FROM n.hash AS differs, o.approval AS old_approval,
           CASE WHEN o.approval = 'approved' THEN o.hash ELSE o.approved_hash END AS base_hash
      FROM incoming n LEFT JOIN old o ON o.name = n.name),
  decided AS (
    SELECT c.*,
           CASE WHEN $12 = 'open' OR ($12 = 'pinned' AND $13::boolean) THEN 'approved'
                WHEN c.is_new THEN 'pending'
                WHEN NOT c.differs THEN c.old_approval
                WHEN c.hash = c.base_hash THEN 'approved'
                ELSE 'pending' END AS approval
      FROM compared c),
  changed AS (
    SELECT d.name, d.position, d.hash, d.old_hash AS previous_hash,
           (SELECT coalesce(jsonb_agg(k ORDER BY array_position($27::text[], k)), '[]'::jsonb)
              FROM jsonb_object_keys(b.def || a.def) k WHERE b.def -> k IS DISTINCT FROM a.def -> k) AS fields
      FROM decided d
      JOIN tools t ON t.server_id = $1::uuid AND t.name = d.name
      CROSS JOIN LATERAL (SELECT ${definitionJson('t')} AS def) b
      CROSS JOIN LATERAL (SELECT ${definitionJson('d')} AS def) a
     WHERE d.differs AND NOT d.is_new),
  upserted AS (
    INSERT INTO tools (id, server_id, name, title, description, input_schema, output_schema, annotations, icons, execution, meta, hash, position, approval)
    SELECT gen_random_uuid(), $1::uuid, name, title, description, input_schema, output_schema, annotations, icons, execution, meta, hash, position - 1, approval
      FROM decided
    ON CONFLICT (server_id, name) DO UPDATE
       SET title = excluded.title, description = excluded.description, input_schema = excluded.input_schema,
           output_schema = excluded.output_schema, annotations = excluded.annotations, icons = excluded.icons,
           execution = excluded.execution, meta = excluded.meta, hash = excluded.hash, position = excluded.position,
           approval = excluded.approval,
           approved_hash = CASE WHEN excluded.approval = 'approved' THEN NULL
                                WHEN tools.approval = 'approved' AND tools.hash <> excluded.hash THEN tools.hash
                                ELSE tools.approved_hash END,
           approved_definition = CASE WHEN excluded.approval = 'approved' THEN NULL
                                      WHEN tools.approval = 'approved' AND tools.hash <> excluded.hash THEN ${definitionJson('tools')}
                                      ELSE tools.approved_definition END,
           seen_at = CASE WHEN tools.hash = excluded.hash THEN tools.seen_at ELSE now() END
     WHERE tools.hash IS DISTINCT FROM excluded.hash OR tools.position IS DISTINCT FROM excluded.position
        OR tools.approval IS DISTINCT FROM excluded.approval),
  deleted AS (DELETE FROM tools WHERE server_id = $1::uuid AND name <> ALL($2::text[]) RETURNING name, position),
  summary AS (
    SELECT COALESCE((SELECT array_agg(name ORDER BY position) FROM decided WHERE is_new), '{}') AS added,
           COALESCE((SELECT array_agg(name ORDER BY position) FROM deleted), '{}') AS removed,
           COALESCE((SELECT array_agg(name ORDER BY position) FROM changed), '{}') AS changed,
           COALESCE((SELECT jsonb_agg(jsonb_build_object('name', name, 'fields', fields, 'hash', hash, 'previousHash', previous_hash) ORDER BY position)
                       FROM changed), '[]'::jsonb) AS changes,
           COALESCE((SELECT array_agg(name ORDER BY position) FROM decided WHERE approval = 'pending' AND (is_new OR differs)), '{}') AS held,
           (SELECT count(*)::int FROM decided WHERE approval = 'pending') AS pending),
  server AS (
    UPDATE servers
       SET status = 'CONNECTED', status_reason = NULL,
           server_name = $14, server_title = $15, server_version = $16, protocol_version = $17, instructions = $18,
           capabilities = $19::jsonb, tool_count = cardinality($2::text[]), resource_count = $20, prompt_count = $21,
           resource_template_count = $29, listing_errors = $30::jsonb,
           pending_tool_changes = (SELECT pending FROM summary), last_discovered_at = now(), updated_at = now()
     WHERE id = $1::uuid
    RETURNING last_discovered_at),
  discovery AS (
    UPDATE server_discovery SET next_at = $22, requested_at = NULL, lease_owner = NULL, lease_until = NULL, retry_reason = NULL
     WHERE server_id = $1::uuid),
  closed AS (
    UPDATE discovery_runs r
       SET outcome = 'SUCCEEDED', finished_at = now(), duration_ms = $23, error = NULL, tool_count = cardinality($2::text[]),
           added = s.added, removed = s.removed, changed = s.changed, changes = s.changes, held = s.held, tools_hash = $26,
           dropped = $24::jsonb, stderr = $25
      FROM summary s
     WHERE r.id = $28::uuid AND r.outcome = 'RUNNING')
  SELECT s.added, s.removed, s.changed, s.held, s.changes, (SELECT last_discovered_at FROM server) AS "discoveredAt"
    FROM summary s`;

function recordToolsValues(id: string, server: LockedServer, result: DiscoverySuccess): unknown[] {
  const i = result.identity;
  const t = result.tools;
  const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  // Absent listings: the server declares none and has none stored (their counts and reasons are null already).
  const listings = result.listings;
  const listingErrors = listings?.errors && Object.keys(listings.errors).length > 0 ? JSON.stringify(listings.errors) : null;
  return [
    id,
    t.map((x) => x.name),
    t.map((x) => x.title ?? null),
    t.map((x) => x.description ?? null),
    t.map((x) => JSON.stringify(x.inputSchema)),
    t.map((x) => json(x.outputSchema)),
    t.map((x) => json(x.annotations)),
    t.map((x) => json(x.icons)),
    t.map((x) => json(x.execution)),
    t.map((x) => json(x._meta)),
    t.map((x) => x.hash),
    server.toolPolicy,
    server.firstDiscovery,
    i.serverName,
    i.serverTitle,
    i.serverVersion,
    i.protocolVersion,
    i.instructions,
    JSON.stringify(i.capabilities),
    i.resourceCount,
    i.promptCount,
    result.nextDiscoveryAt,
    Math.round(result.durationMs),
    JSON.stringify(result.dropped),
    result.stderr,
    result.toolsHash,
    TOOL_FIELDS,
    result.runId,
    listings?.resourceTemplates?.length ?? null,
    listingErrors,
  ];
}

/** The event that says definitions of a server wait for a decision: which (the first EVENT_TOOLS), and how many. */
function pendingEvent(id: string, server: LockedServer, tools: StoredTool[], row: RecordedTools): ServerEventInput {
  const hashes = new Map(tools.map((t) => [t.name, t.hash]));
  const changed = new Map(row.changes.map((c) => [c.name, c]));
  return {
    serverId: id,
    tenantId: server.tenantId,
    type: 'server.tool_change_pending',
    data: {
      serverId: id,
      serverName: server.name,
      toolPolicy: server.toolPolicy,
      count: row.held.length,
      tools: row.held.slice(0, EVENT_TOOLS).map((name) => {
        const c = changed.get(name);
        return c ? { toolName: name, kind: 'changed', hash: c.hash, previousHash: c.previousHash, fields: c.fields } : { toolName: name, kind: 'added', hash: hashes.get(name) };
      }),
    },
  };
}

export interface SweepCandidate {
  id: string;
  discoveryRequestedAt: Date | null;
  leaseOwner: string | null;
}

/**
 * The discovery worker's side of the servers: their discovery rows (server_discovery: the lease that keeps one
 * discovery per server at a time, the schedule, the time of the request), the status machine's transitions, and the
 * sweeps that rebuild schedules and missed work from the database. A write that only moves bookkeeping touches the
 * discovery row alone, so the change feed reports it as bookkeeping; where a statement locks or writes both rows it
 * takes the discovery row first, as every statement here does, so that two of them never wait on each other.
 */
@Injectable()
export class DiscoveryStateRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL) private readonly sql: Sql,
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
    // The server row is written only when its status moves (a retry finds it DISCOVERING already).
    const taken = await this.sql.query<ServerRow & { claimedAt: Date }>(
      `WITH claimed AS (
         UPDATE server_discovery d
            SET lease_owner = $2,
                lease_until = now() + make_interval(secs => $3),
                requested_at = COALESCE(d.requested_at, now())
           FROM servers s
          WHERE d.server_id = $1::uuid AND s.id = d.server_id
            AND s.enabled
            AND (d.lease_until IS NULL OR d.lease_until < now() OR d.lease_owner = $2)
         RETURNING d.*),
       shown AS (
         UPDATE servers SET status = 'DISCOVERING', updated_at = now()
          WHERE id = $1::uuid AND status <> 'DISCOVERING' AND EXISTS (SELECT 1 FROM claimed)),
       orphaned AS (
         UPDATE discovery_runs
            SET outcome = 'FAILED', finished_at = now(), error = $4,
                duration_ms = (EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::int
          WHERE server_id = $1::uuid AND outcome = 'RUNNING' AND EXISTS (SELECT 1 FROM claimed)),
       opened AS (
         INSERT INTO discovery_runs (id, server_id, trigger, attempt)
         SELECT $5::uuid, server_id, $6, $7 FROM claimed)
       SELECT ${SERVER_COLUMNS}, now()::timestamptz(3) AS "claimedAt", ${ASYNC_COMMIT} FROM servers s JOIN claimed d ON d.server_id = s.id`,
      [id, owner, leaseMs / 1000, run.orphanedRun, runId, run.trigger, run.attempt],
      'discovery.claim',
    );
    if (taken.length === 1) {
      // The server row as the statement found it, DISCOVERING from now on.
      const row = { ...taken[0], status: 'DISCOVERING' as const };
      return {
        status: 'claimed',
        subject: { server: toServerRecord(row), credentials: { credentialsCipher: row.credentialsCipher, credentialsEnv: row.credentialsEnv } },
        claimedAt: row.claimedAt,
        runId,
      };
    }
    const rows = await this.sql.query<{ enabled: boolean; leaseUntil: Date | null }>(
      `SELECT s.enabled, d.lease_until AS "leaseUntil" FROM servers s JOIN server_discovery d ON d.server_id = s.id WHERE s.id = $1::uuid`,
      [id],
    );
    if (rows.length === 0) return { status: 'gone' };
    if (!rows[0].enabled) return { status: 'disabled' };
    return { status: 'busy', leaseUntil: rows[0].leaseUntil ?? new Date() };
  }

  /**
   * Locks the server's discovery row and its row for recording an outcome and says whether this worker may: it
   * must still hold the lease, the server must still be enabled, and no newer discovery may have been asked for
   * since `claimedAt` (a request stamps the discovery row under its lock, so it is either seen here or waits for
   * this transaction). In the last two cases the run is closed and the lease given back, and nothing else moves.
   * The server row's lock also keeps a decision on the server's tools (taken under the same lock) from interleaving.
   */
  private async lockForRecord(
    query: TransactionQuery,
    id: string,
    owner: string,
    claimedAt: Date,
    runId: string,
    run: { durationMs: number; error?: string | null; stderr: string | null },
  ): Promise<{ refused: 'lost' | 'superseded' | 'disabled' } | { locked: LockedServer }> {
    const rows = await query<LockedServer & { enabled: boolean; newer: boolean }>(
      `SELECT s.enabled, COALESCE(d.requested_at > $3, false) AS newer, s.tenant_id AS "tenantId", s.name,
              s.tool_policy AS "toolPolicy", s.last_discovered_at IS NULL AS "firstDiscovery", ${ASYNC_COMMIT}
         FROM server_discovery d JOIN servers s ON s.id = d.server_id
        WHERE d.server_id = $1::uuid AND d.lease_owner = $2 FOR UPDATE`,
      [id, owner, claimedAt],
      'discovery.lock',
    );
    if (rows.length === 0) return { refused: 'lost' };
    const [row] = rows;
    if (row.enabled && !row.newer) return { locked: row };
    const why = !row.enabled ? 'the server was disabled during this discovery' : 'a newer discovery was asked for during this one';
    await query(
      `WITH closed AS (
         UPDATE discovery_runs SET outcome = 'CANCELLED', finished_at = now(), duration_ms = $2, error = $3, stderr = $4
          WHERE id = $1::uuid AND outcome = 'RUNNING')
       UPDATE server_discovery SET lease_owner = NULL, lease_until = NULL WHERE server_id = $5::uuid`,
      [runId, Math.round(run.durationMs), run.error ? `${why}; it had failed: ${run.error}` : why, run.stderr, id],
      'discovery.cancel',
    );
    return { refused: !row.enabled ? 'disabled' : 'superseded' };
  }

  /**
   * Records a successful discovery in one transaction: the server's rows locked (the gate: this worker still holds
   * the lease of an enabled server nobody asked to discover again, else nothing is written and the run says
   * why); a tenant's tools counted against its limit; then one statement that updates the tools in place (ids
   * kept; a tool whose definition, place and decision are unchanged is not rewritten, so a discovery that found
   * nothing new writes no tool rows), decides each new or changed definition by the server's tool policy,
   * marks the server CONNECTED with what it said about itself and its lists' counts (the server row's one write),
   * schedules the next discovery, and closes the run with what changed, field by field; the lists besides tools,
   * where they changed; and, when definitions were held for a decision, the `server.tool_change_pending` event.
   */
  async succeed(id: string, owner: string, claimedAt: Date, result: DiscoverySuccess): Promise<RecordResult> {
    return this.sql.transaction(async (query) => {
      const lock = await this.lockForRecord(query, id, owner, claimedAt, result.runId, result);
      if ('refused' in lock) return { status: lock.refused };
      const server = lock.locked;
      if (result.toolQuota) {
        const over = await this.overToolLimit(query, id, result.toolQuota, result.tools.length);
        if (over) {
          await this.recordFailure(query, id, { ...result, reason: over.reason, final: true });
          return { status: 'over-limit', reason: over.reason, limit: over.limit };
        }
      }
      const [row] = await query<RecordedTools>(RECORD_TOOLS, recordToolsValues(id, server, result), 'discovery.record-tools');
      const changes: ToolChanges = { added: row.added, removed: row.removed, changed: row.changed, held: row.held };
      if (result.listings) await this.listings.replaceAll(query, id, result.listings);
      if (changes.held.length > 0) {
        const event = serverEventInsert([pendingEvent(id, server, result.tools, row)], 1);
        await query(event.text, event.values);
      }
      return { status: 'recorded', changes, discoveredAt: row.discoveredAt };
    });
  }

  /**
   * Whether `incoming` tools on this server would take its tenant past its tool limit. The tenant's row is locked
   * first, so that two discoveries of one tenant's servers count one after the other (each statement after the
   * lock reads what the other committed): together they cannot pass the limit.
   */
  private async overToolLimit(
    query: TransactionQuery,
    id: string,
    quota: { tenantId: string; maxTools: number },
    incoming: number,
  ): Promise<{ reason: string; limit: number } | undefined> {
    const [tenant] = await query<{ max: number | null }>(`SELECT (limits->>'maxTools')::int AS max FROM tenants WHERE id = $1::uuid FOR UPDATE`, [quota.tenantId]);
    const limit = tenant?.max ?? quota.maxTools;
    const [{ held }] = await query<{ held: number }>(
      `SELECT count(*)::int AS held FROM tools t JOIN servers s ON s.id = t.server_id WHERE s.tenant_id = $1::uuid AND s.id <> $2::uuid`,
      [quota.tenantId, id],
    );
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
    return this.sql.transaction(async (query) => {
      const lock = await this.lockForRecord(query, id, owner, claimedAt, failure.runId, { ...failure, error: failure.reason });
      if ('refused' in lock) return { status: lock.refused };
      await this.recordFailure(query, id, failure);
      return { status: 'recorded', changes: { added: [], removed: [], changed: [], held: [] } };
    });
  }

  /**
   * The run closed as FAILED and the server ERROR with the reason (final), or still DISCOVERING with the reason on
   * its discovery row (to be tried again: bookkeeping, the server row is not written).
   */
  private async recordFailure(
    query: TransactionQuery,
    id: string,
    f: Pick<DiscoveryFailure, 'runId' | 'reason' | 'durationMs' | 'stderr' | 'dropped' | 'final' | 'nextDiscoveryAt'>,
  ): Promise<void> {
    await query(
      `WITH closed AS (
         UPDATE discovery_runs SET outcome = 'FAILED', finished_at = now(), duration_ms = $2, error = $3, dropped = $4::jsonb, stderr = $5
          WHERE id = $1::uuid AND outcome = 'RUNNING'),
       discovery AS (
         UPDATE server_discovery
            SET next_at = CASE WHEN $7 THEN $8::timestamptz ELSE next_at END,
                requested_at = CASE WHEN $7 THEN NULL ELSE requested_at END,
                retry_reason = CASE WHEN $7 THEN NULL ELSE $3 END,
                lease_owner = NULL, lease_until = NULL
          WHERE server_id = $6::uuid
         RETURNING server_id)
       UPDATE servers SET status = 'ERROR', status_reason = $3, updated_at = now()
        WHERE id IN (SELECT server_id FROM discovery) AND $7::boolean`,
      [f.runId, Math.round(f.durationMs), f.reason, JSON.stringify(f.dropped ?? []), f.stderr, id, f.final, f.nextDiscoveryAt],
      'discovery.record-failure',
    );
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
         JOIN server_discovery d ON d.server_id = s.id
         JOIN unnest($1::uuid[], $2::timestamptz[]) AS c(id, since) ON s.id = c.id
        WHERE s.enabled AND s.status = 'DISCOVERING'
          AND d.lease_owner IS NULL AND d.requested_at > c.since`,
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
   * Discoveries were asked for: each enabled server among `ids` shows DISCOVERING, queued, stamped with the
   * database's clock (the clock the worker's claim is stamped with, so the result gate compares like with like,
   * whatever the asking host's clock says). The stamp is bookkeeping: the server row is written only for the
   * servers not shown queued already. A discovery running now started before this ask, so it will not be recorded
   * as the answer to it (see succeed()). Returns the servers stamped and when. The audit events given are written,
   * in the same statement, for the servers stamped only.
   */
  async markRequestedMany(ids: string[], audit: AuditEventInput[] = []): Promise<Map<string, Date>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return new Map();
    // The audit events of the servers stamped, in the same statement: a request and its record, both or neither.
    const audited = audit.length > 0 ? auditInsert(audit, 2, { from: 'stamped', column: 'id' }) : undefined;
    const rows = await this.sql.query<{ id: string; at: Date }>(
      `WITH stamped AS (
         UPDATE server_discovery d SET requested_at = now(), retry_reason = NULL
           FROM servers s
          WHERE d.server_id = ANY($1::uuid[]) AND s.id = d.server_id AND s.enabled
         RETURNING d.server_id AS id, d.requested_at AS at),
       shown AS (
         UPDATE servers SET status = 'DISCOVERING', status_reason = 'discovery queued', updated_at = now()
          WHERE id IN (SELECT id FROM stamped) AND (status <> 'DISCOVERING' OR status_reason IS DISTINCT FROM 'discovery queued'))
       ${audited ? `, audited AS (${audited.text})` : ''}
       SELECT id, at FROM stamped`,
      audited ? [valid, ...audited.values] : [valid],
      // Prepared once per text: the audited variants differ with their events.
      audited ? undefined : 'discovery.request',
    );
    return new Map(rows.map((r) => [r.id, r.at]));
  }

  /** A disabled server is not discovered: DISCONNECTED, nothing scheduled (rows written only where that changes them). */
  async markDisconnected(id: string): Promise<void> {
    if (!isUuid(id)) return;
    await this.sql.query(
      `WITH cleared AS (
         UPDATE server_discovery d SET next_at = NULL, requested_at = NULL, retry_reason = NULL
           FROM servers s
          WHERE d.server_id = $1::uuid AND s.id = d.server_id AND NOT s.enabled
            AND (d.next_at IS NOT NULL OR d.requested_at IS NOT NULL OR d.retry_reason IS NOT NULL))
       UPDATE servers SET status = 'DISCONNECTED', status_reason = NULL, updated_at = now()
        WHERE id = $1::uuid AND NOT enabled AND (status <> 'DISCONNECTED' OR status_reason IS NOT NULL)`,
      [id],
      'discovery.disconnected',
    );
  }

  /** Ends a discovery that cannot finish (its worker stopped too often): ERROR with the reason. */
  async markError(id: string, reason: string, nextDiscoveryAt: Date | null): Promise<void> {
    if (!isUuid(id)) return;
    await this.sql.query(
      `WITH ended AS (
         UPDATE server_discovery d SET next_at = $3, requested_at = NULL, lease_owner = NULL, lease_until = NULL, retry_reason = NULL
           FROM servers s
          WHERE d.server_id = $1::uuid AND s.id = d.server_id AND s.status = 'DISCOVERING'
         RETURNING d.server_id)
       UPDATE servers SET status = 'ERROR', status_reason = $2, updated_at = now() WHERE id IN (SELECT server_id FROM ended)`,
      [id, reason, nextDiscoveryAt],
      'discovery.abandoned',
    );
  }

  /**
   * Marks up to `limit` enabled servers whose next discovery is due (or was
   * never scheduled) as DISCOVERING and returns their ids. Concurrent sweeps
   * skip each other's rows.
   */
  async takeDue(limit: number): Promise<string[]> {
    const rows = await this.sql.query<{ id: string }>(
      `WITH due AS (
         SELECT d.server_id FROM server_discovery d JOIN servers s ON s.id = d.server_id
          WHERE s.enabled
            AND s.status <> 'DISCOVERING'
            AND d.lease_owner IS NULL
            AND (d.next_at IS NULL OR d.next_at <= now())
          ORDER BY d.next_at NULLS FIRST
          LIMIT $1
          FOR UPDATE SKIP LOCKED),
       stamped AS (
         UPDATE server_discovery SET requested_at = now(), retry_reason = NULL
          WHERE server_id IN (SELECT server_id FROM due)
         RETURNING server_id)
       UPDATE servers SET status = 'DISCOVERING', updated_at = now()
        WHERE id IN (SELECT server_id FROM stamped)
       RETURNING id`,
      [limit],
      'discovery.take-due',
    );
    return rows.map((r) => r.id);
  }

  /**
   * DISCOVERING servers no worker holds: each must have a job in the queue. A server asked for within the last
   * 3 seconds is left to the request that is queueing it (its enqueue is bounded well within that), so
   * that a sweep running at that moment does not queue its discovery first under the sweep's own trigger.
   */
  async listWaiting(limit: number): Promise<SweepCandidate[]> {
    return this.sql.query<SweepCandidate>(
      `SELECT s.id, d.requested_at AS "discoveryRequestedAt", d.lease_owner AS "leaseOwner"
         FROM servers s JOIN server_discovery d ON d.server_id = s.id
        WHERE s.enabled AND s.status = 'DISCOVERING' AND d.lease_owner IS NULL
          AND COALESCE(d.requested_at, s.updated_at) < now() - interval '3 seconds'
        ORDER BY d.requested_at NULLS FIRST
        LIMIT $1`,
      [limit],
      'discovery.waiting',
    );
  }

  /** Servers whose lease ran out: the worker holding it stopped in the middle of a discovery. */
  async listExpiredLeases(limit: number): Promise<SweepCandidate[]> {
    return this.sql.query<SweepCandidate>(
      `SELECT server_id AS id, requested_at AS "discoveryRequestedAt", lease_owner AS "leaseOwner"
         FROM server_discovery
        WHERE lease_until < now()
        ORDER BY lease_until
        LIMIT $1`,
      [limit],
      'discovery.expired-leases',
    );
  }

  /** Takes back one expired lease (if it is still the same expired one); true when taken. */
  async reclaimExpiredLease(id: string, owner: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.sql.query<{ id: string }>(
      `UPDATE server_discovery SET lease_owner = NULL, lease_until = NULL
        WHERE server_id = $1::uuid AND lease_owner = $2 AND lease_until < now()
       RETURNING server_id AS id`,
      [id, owner],
    );
    return rows.length > 0;
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
    const rows = await this.sql.query<{ id: string }>(
      `WITH off AS (
         SELECT d.server_id FROM server_discovery d JOIN servers s ON s.id = d.server_id
          WHERE NOT s.enabled AND s.status <> 'DISCONNECTED' AND d.lease_owner IS NULL
          LIMIT $1
          FOR UPDATE SKIP LOCKED),
       cleared AS (
         UPDATE server_discovery SET next_at = NULL, requested_at = NULL, retry_reason = NULL
          WHERE server_id IN (SELECT server_id FROM off))
       UPDATE servers SET status = 'DISCONNECTED', status_reason = NULL, updated_at = now()
        WHERE id IN (SELECT server_id FROM off)
       RETURNING id`,
      [limit],
      'discovery.disconnect-disabled',
    );
    return rows.map((r) => r.id);
  }
}
