import { DiscoveryStateRepository, DiscoverySubject, DiscoverySuccess, ToolChanges } from '@app/database';
import { ServerRecord, TransportType } from '@app/domain';
import {
  ByteBudget,
  classifyError,
  ConnectionTarget,
  McpFailure,
  McpFailureCode,
  McpSession,
  PooledHttpTransport,
  redactor,
  ServerSessions,
} from '@app/mcp';
import { RUNTIME, Runtime } from '@app/platform';
import type { DiscoveryTrigger } from '@app/queue';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { storableField, storableJson, storableText, UncleanableError, uncleanableFailure } from './discovered-text';
import { listItems } from './item-lister';
import { DEFAULT_LISTING_LIMITS, listAllTools, ListingLimits } from './tool-lister';
import { ToolChangeWatcher } from './tool-change-watcher';
import { listingHash } from './tool-definition';

export interface DiscoveryAttempt {
  serverId: string;
  trigger: DiscoveryTrigger;
  /** 1 for the first try of this request. */
  attempt: number;
  maxAttempts: number;
}

/**
 * `claimedAt`: when this discovery took the server. A discovery asked for after it recorded its result, while
 * its job was still finishing, was joined to that job by the queue: once the job has ended, the worker asks
 * the database for such requests (see `askedAgainAmong`) and queues them.
 */
export type AttemptOutcome =
  | { kind: 'succeeded'; toolCount: number; changes: ToolChanges; durationMs: number; claimedAt?: Date }
  | { kind: 'failed'; failure: McpFailure; reason: string; final: boolean; durationMs: number; claimedAt?: Date }
  /** Another worker runs this server's discovery; try again after `until`. */
  | { kind: 'busy'; until: Date }
  | { kind: 'skipped'; reason: 'gone' | 'disabled' }
  /** The lease ran out before the result could be written (the sweeper handed the server on). */
  | { kind: 'lost'; durationMs: number }
  /** A newer discovery was asked for while this one ran (the URL changed, say): run it again now. */
  | { kind: 'superseded'; durationMs: number }
  /** The server was disabled while this discovery ran: it stays DISCONNECTED. */
  | { kind: 'cancelled'; durationMs: number };

/** What a run left open by a worker that stopped (killed, crashed) says when it is closed. */
export const ORPHANED_RUN = 'the worker running this discovery stopped before it finished';

/** Extra time a lease lasts beyond the attempt's deadline: closing the connection and writing the result. */
export const LEASE_MARGIN_MS = 10_000;
/**
 * The share of DISCOVERY_TIMEOUT_MS by which the lists besides tools (resources, templates, prompts) must have
 * been read: a server slow on them loses those lists, not its tools (the rest is left for recording the result).
 */
const LISTS_SHARE_OF_TIMEOUT = 0.75;
/** How long a discovery's session may take to close before it is left to the transport. */
const CLOSE_WAIT_MS = 3000;

/** When the next discovery is due: the interval, spread by ±10% so that servers registered together drift apart. */
export function nextDiscoveryAt(server: Pick<ServerRecord, 'discoveryIntervalSeconds'>, defaultSeconds: number, now = Date.now()): Date {
  const seconds = server.discoveryIntervalSeconds ?? defaultSeconds;
  return new Date(now + seconds * 1000 * (0.9 + Math.random() * 0.2));
}

function lastLine(text: string | undefined): string | undefined {
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const last = lines[lines.length - 1];
  if (!last) return undefined;
  return last.length > 200 ? last.slice(0, 200) + '…' : last;
}

/**
 * A result the database did not take. Values it cannot hold are cleaned before they are written, so a data
 * exception (SQLSTATE class 22) is a value that escaped the cleaning: permanent, since the same answer would
 * be refused again. Anything else (the database unreachable, a lock timeout) is worth another attempt.
 */
function recordingFailure(err: unknown): McpFailure {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('22')) {
    return new McpFailure(McpFailureCode.ProtocolViolation, `the server's answer holds a value the database cannot store (SQLSTATE ${code})`);
  }
  return new McpFailure(McpFailureCode.DependencyUnavailable, `the result could not be recorded: the database did not answer or refused it${typeof code === 'string' ? ` (${code})` : ''}`);
}

/** Whether the server has lists besides tools stored (or reasons for them): a discovery must replace them. */
function hasListings(server: ServerRecord): boolean {
  return server.resourceCount !== null || server.resourceTemplateCount !== null || server.promptCount !== null || server.listingErrors !== null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/**
 * One discovery attempt of one server: take the server's lease, connect,
 * record who it is, list every tool page by page within bounds, then the
 * resources, resource templates and prompts it declares (a failure there is
 * recorded as the list's reason and keeps the tools), and write the result in
 * one transaction, or the failure with a reason a person can act on. The
 * whole attempt is bounded by DISCOVERY_TIMEOUT_MS.
 */
@Injectable()
export class DiscoveryService implements OnModuleDestroy {
  /** This process's name on the leases it takes. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  /** The bounds of one server's listings (pages, tools, items, bytes). */
  private readonly limits: ListingLimits = DEFAULT_LISTING_LIMITS;
  /** Sessions still being ended, remote ones after their attempt returned (see run()). */
  private readonly closing = new Set<Promise<unknown>>();
  /** Each server's tenant, as looked up for jobs queued without it (see tenantOf()). */
  private readonly tenants = new Map<string, string | null>();

  constructor(
    @Inject(RUNTIME) private readonly runtime: Runtime,
    private readonly state: DiscoveryStateRepository,
    private readonly sessions: ServerSessions,
    private readonly watcher: ToolChangeWatcher,
  ) {}

  /** Lets the sessions still being ended finish (each within CLOSE_WAIT_MS). */
  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.closing]);
  }

  get leaseMs(): number {
    return this.runtime.config.discovery.timeoutMs + LEASE_MARGIN_MS;
  }

  async discover(attempt: DiscoveryAttempt): Promise<AttemptOutcome> {
    const claim = await this.state.claim(attempt.serverId, this.owner, this.leaseMs, {
      trigger: attempt.trigger,
      attempt: attempt.attempt,
      orphanedRun: ORPHANED_RUN,
    });
    if (claim.status === 'gone') {
      this.watcher.unwatch(attempt.serverId);
      return { kind: 'skipped', reason: 'gone' };
    }
    if (claim.status === 'disabled') {
      await this.state.markDisconnected(attempt.serverId);
      this.watcher.unwatch(attempt.serverId);
      return { kind: 'skipped', reason: 'disabled' };
    }
    if (claim.status === 'busy') return { kind: 'busy', until: claim.leaseUntil };
    const outcome = await this.run(claim.subject, claim.claimedAt, claim.runId, attempt);
    if (outcome.kind === 'succeeded' || (outcome.kind === 'failed' && outcome.final)) outcome.claimedAt = claim.claimedAt;
    return outcome;
  }

  /** The server's tenant (null: the platform's), remembered: a server never changes owner. */
  async tenantOf(serverId: string): Promise<string | null> {
    const known = this.tenants.get(serverId);
    if (known !== undefined) return known;
    const tenantId = await this.state.tenantOf(serverId);
    if (this.tenants.size >= 100_000) this.tenants.clear();
    this.tenants.set(serverId, tenantId);
    return tenantId;
  }

  /**
   * Of the servers given, each with when its last discovery claimed it, those a discovery was asked for since
   * that none runs now: requests that came while that discovery's job was ending, which the queue took as
   * duplicates of it.
   */
  askedAgainAmong(claims: readonly { serverId: string; since: Date }[]): Promise<Set<string>> {
    return this.state.askedAgainAmong(claims);
  }

  private async run(subject: DiscoverySubject, claimedAt: Date, runId: string, attempt: DiscoveryAttempt): Promise<AttemptOutcome> {
    const { server } = subject;
    const started = Date.now();
    const timeoutMs = this.runtime.config.discovery.timeoutMs;
    let phase = 'connecting';
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new McpFailure(McpFailureCode.Timeout, `no answer within ${timeoutMs} ms (while waiting for ${phase})`)),
      timeoutMs,
    );
    let readStderr: (() => string) | undefined;
    let session: McpSession | undefined;
    let secrets: string[] = [];
    let refuseCredentials: (() => boolean) | undefined;
    /** The change watcher took the session over: it is not closed here. */
    let adopted = false;
    const budget = new ByteBudget(this.limits.maxBytes);
    try {
      /** What the session was last opened with: its secrets, its OAuth side. */
      let target: ConnectionTarget | undefined;
      const connect = () =>
        this.sessions.open(server, subject.credentials, (opened) => {
          target = opened;
          secrets = opened.secrets;
          if (opened.transport === 'streamable-http' || opened.transport === 'sse') refuseCredentials = opened.refuseCredentials;
          phase = 'initialize';
          return {
            signal: deadline.signal,
            budget,
            requestTimeoutMs: timeoutMs,
            serverMessages: false,
            lastProtocolVersion: server.protocolVersion,
            // Node's own HTTP client for Streamable HTTP: a discovery costs a third of the CPU it costs through fetch.
            streamableHttpTransport: (t) => new PooledHttpTransport(t.url, { headers: t.headers, lookup: t.lookup, budget, onChallenge: t.oauth?.record }),
            onStderr: (read) => (readStderr = read),
          };
        });
      // The whole session (connect, then listing) meets OAuth the same way: a 401 (or 403 insufficient_scope) at
      // any step is detected, or its token renewed once and the session made again from the start.
      const listAll = async () => {
        session = (await connect()).session;
        const redact = redactor(secrets);
        const ctx = { signal: deadline.signal, timeoutMs, limits: this.limits, onPhase: (p: string) => (phase = p), redact };
        const tools = await listAllTools(session, ctx);
        const listsMs = Math.round(timeoutMs * LISTS_SHARE_OF_TIMEOUT);
        const listsSignal = AbortSignal.any([deadline.signal, AbortSignal.timeout(Math.max(0, started + listsMs - Date.now()))]);
        const open = session;
        const explain = (err: unknown, method: string) => {
          if (budget.exceeded) return budget.failure().message;
          if (listsSignal.aborted && !deadline.signal.aborted) {
            return `no complete answer to ${method} within ${listsMs} ms of the discovery's start, the time it gives the lists besides tools`;
          }
          return (open.transportFailure() ?? classifyError(err, method, redact)).message;
        };
        const listings = await listItems(session, { ...ctx, signal: listsSignal, discoverySignal: deadline.signal, explain });
        return { listing: tools, listings, session };
      };
      let listed: Awaited<ReturnType<typeof listAll>>;
      try {
        listed = await listAll();
      } catch (err) {
        // Refused for want of OAuth (401, or 403 insufficient_scope): detected, or a token renewed and one more try.
        const refusal = session?.transportFailure() ?? err;
        if (!target || !(await this.authorizedAgain(refusal, target, deadline.signal))) throw err;
        if (session) {
          void this.close(session);
          session = undefined;
        }
        phase = 'connecting';
        listed = await listAll();
      }
      const { listing, listings } = listed;
      session = listed.session;
      const redact = redactor(secrets);
      const caps = session.capabilities;
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      const info = session.serverInfo;
      // What the server said about itself, cleaned of what PostgreSQL cannot store and of its own secrets.
      let identity: DiscoverySuccess['identity'];
      try {
        identity = {
          serverName: storableField(info.name, redact),
          serverTitle: storableField(info.title, redact),
          serverVersion: storableField(info.version, redact),
          protocolVersion: storableField(session.protocolVersion, redact),
          instructions: storableField(session.instructions, redact),
          capabilities: storableJson(caps, 'capabilities', redact) as DiscoverySuccess['identity']['capabilities'],
          resourceCount: listings.resources?.length ?? null,
          promptCount: listings.prompts?.length ?? null,
        };
      } catch (err) {
        throw err instanceof UncleanableError ? uncleanableFailure(err) : err;
      }
      phase = 'recording the result';
      const recorded = await this.state.succeed(server.id, this.owner, claimedAt, {
        runId,
        identity,
        tools: listing.tools,
        dropped: storableJson(listing.dropped, 'dropped', redact) as DiscoverySuccess['dropped'],
        durationMs,
        stderr: storableField(readStderr?.() || null),
        nextDiscoveryAt: nextDiscoveryAt(server, this.runtime.config.discovery.intervalSeconds),
        toolsHash: listingHash(listing.tools),
        // The platform's servers are not counted against any tenant.
        toolQuota: server.tenantId ? { tenantId: server.tenantId, maxTools: this.runtime.config.tenantLimits.maxTools } : undefined,
        // Written when there is something to write or something stored to replace.
        listings: caps.resources || caps.prompts || hasListings(server) ? listings : undefined,
      });
      if (recorded.status === 'over-limit') {
        // Final: discovering again finds the same tools until the tenant makes room or its limit is raised.
        this.observe('failed', durationMs);
        this.watcher.unwatch(server.id);
        const failure = new McpFailure(McpFailureCode.LimitExceeded, recorded.reason);
        return { kind: 'failed', failure, reason: recorded.reason, final: true, durationMs };
      }
      if (recorded.status !== 'recorded') return this.unrecorded(recorded.status, server.id, durationMs);
      this.observe('succeeded', durationMs);
      const listChanged = (caps.tools as { listChanged?: unknown } | undefined)?.listChanged === true;
      // A session cut off at the byte budget (while listing resources, say) is not kept for watching.
      if (listChanged && !budget.exceeded) {
        // Watched on this very session when the watcher takes it (the discovery's byte budget no longer applies),
        // with the revision it just spoke (the record read at the claim may predate it).
        budget.release();
        adopted = this.watcher.adopt({ ...server, protocolVersion: session.protocolVersion ?? null }, subject.credentials, recorded.discoveredAt, session);
      }
      return { kind: 'succeeded', toolCount: listing.tools.length, changes: recorded.changes, durationMs };
    } catch (err) {
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      const failure = budget.exceeded ? budget.failure() : this.explain(err, deadline.signal, session, phase, secrets);
      const stderr = storableField(readStderr?.() || null);
      // Credentials the registry obtains itself (Pipedream's token) may have been revoked before their expiry:
      // refused, they are dropped, and the next attempt, with fresh ones, decides.
      const refused = failure.code === McpFailureCode.Unauthorized && refuseCredentials?.() === true;
      const final = !(failure.transient || refused) || attempt.attempt >= attempt.maxAttempts;
      let reason = failure.message;
      const tail = lastLine(stderr ?? undefined);
      if (tail && (failure.code === McpFailureCode.ProcessFailed || failure.code === McpFailureCode.ProtocolViolation)) {
        reason += `; the last line on its stderr: ${tail}`;
      }
      if (!final) reason = `attempt ${attempt.attempt} of ${attempt.maxAttempts} failed: ${reason}; trying again`;
      reason = redactor(secrets)(storableText(reason));
      const recorded = await this.state.fail(server.id, this.owner, claimedAt, {
        runId,
        reason,
        durationMs,
        stderr,
        final,
        nextDiscoveryAt: final ? nextDiscoveryAt(server, this.runtime.config.discovery.intervalSeconds) : null,
      });
      if (recorded.status !== 'recorded') return this.unrecorded(recorded.status, server.id, durationMs);
      this.observe(final ? 'failed' : 'retrying', durationMs);
      if (final) this.watcher.unwatch(server.id);
      return { kind: 'failed', failure, reason, final, durationMs };
    } finally {
      if (session && !adopted) {
        // A child process is reaped before the attempt returns, so that no more of them live at once than
        // discoveries run. A remote session is ended after the attempt has returned: its DELETE says nothing about
        // the server, and waiting a round trip for it would keep the attempt's place in the worker's concurrency
        // from the next server (a third of a discovery's time for a server 100 ms away).
        const closed = this.close(session);
        if (server.transport === TransportType.STDIO) await closed;
      }
    }
  }

  /**
   * Ends a discovery's session, never waiting long for a server that ignores the close (the transport kills a
   * child that does not exit). Settles within CLOSE_WAIT_MS; a stop waits for the closes still under way.
   */
  private close(session: McpSession): Promise<unknown> {
    const closed = Promise.race([session.close().catch(() => undefined), sleep(CLOSE_WAIT_MS)]);
    this.closing.add(closed);
    void closed.finally(() => this.closing.delete(closed));
    return closed;
  }

  /**
   * After a refused connection, asks upstream OAuth what to do: true when a fresh token is ready (connect once
   * more); throws the failure to record when the server needs authorization; false to report the refusal as it is.
   */
  private async authorizedAgain(err: unknown, target: ConnectionTarget, signal: AbortSignal): Promise<boolean> {
    if ((target.transport !== 'streamable-http' && target.transport !== 'sse') || !target.oauth || signal.aborted) return false;
    const failure = classifyError(err, 'initialize', redactor(target.secrets));
    if (failure.code !== McpFailureCode.Unauthorized && failure.code !== McpFailureCode.Forbidden) return false;
    const verdict = await target.oauth.refused(failure.httpStatus).catch((e: unknown) => {
      if (e instanceof McpFailure) return { retry: false as const, failure: e };
      throw e;
    });
    if (verdict.retry) return true;
    if (verdict.failure) throw verdict.failure;
    return false;
  }

  private unrecorded(status: 'lost' | 'superseded' | 'disabled', serverId: string, durationMs: number): AttemptOutcome {
    if (status === 'disabled') {
      this.watcher.unwatch(serverId);
      return { kind: 'cancelled', durationMs };
    }
    return { kind: status, durationMs };
  }

  /** The failure to report: the deadline first, then what the transport saw, then the error itself. */
  private explain(err: unknown, signal: AbortSignal, session: McpSession | undefined, phase: string, secrets: string[]): McpFailure {
    if (signal.aborted && signal.reason instanceof McpFailure) return signal.reason;
    const fromTransport = session?.transportFailure();
    if (fromTransport) return fromTransport;
    if (phase === 'recording the result' && !(err instanceof McpFailure)) return recordingFailure(err);
    return classifyError(err, phase, redactor(secrets));
  }

  private observe(outcome: 'succeeded' | 'failed' | 'retrying', durationMs: number): void {
    this.runtime.metrics.discoveries.inc({ outcome });
    this.runtime.metrics.discoveryDuration.observe({ outcome }, durationMs / 1000);
  }
}
