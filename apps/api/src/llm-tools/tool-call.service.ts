import { ServerRepository, ToolRepository, WithheldReason } from '@app/database';
import {
  ConflictError,
  DomainError,
  isLimitRefusal,
  NotFoundError,
  Principal,
  ServerKind,
  ServiceUnavailableError,
  statusToWire,
  UpstreamError,
  UpstreamTimeoutError,
} from '@app/domain';
import {
  classifyError,
  ConnectionTarget,
  ConnectOptions,
  countingAnswers,
  McpFailure,
  McpFailureCode,
  McpSession,
  McpSessionPool,
  detachedSignalFetch,
  PooledHttpTransport,
  redactor,
  OpenedSession,
  ServerSessions,
  TargetAuthorization,
} from '@app/mcp';
import { RUNTIME, Runtime } from '@app/platform';
import type { CallToolContext, CallToolInput } from '@app/mcp-server';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { CallAuditWriter } from './call-audit.writer';
import { CallRateLimiter } from './call-rate-limiter';
import { CallAllowance, TenantCallLimits } from './tenant-call-limits';
import { CatalogServer, ToolCatalogService } from './tool-catalog.service';

/** Why a tool the server has cannot be called, as a refusal says it. */
const WITHHELD: Record<WithheldReason, string> = {
  pending: "its definition is new or changed and waits for a decision of the server's owner (see the server's toolPolicy)",
  rejected: "its definition was rejected by the server's owner",
  disabled: "the server's owner disabled it",
};

/** How long an upstream session may sit unused before it is closed. */
export const SESSION_IDLE_MS = 60_000;

/** Thrown inside a pooled call whose session must be opened again with a fresh OAuth token (the session is retired). */
class FreshTokenNeeded extends Error {
  constructor() {
    super('the session was opened with an OAuth token that has been renewed since');
    this.name = 'FreshTokenNeeded';
  }
}

/**
 * A target adapted to a pooled session: the in-process server answers in the caller's scope; a remote one's
 * requests outlive the signal of the call that opened the session (see detachedSignalFetch; the HTTP+SSE
 * transport still uses fetch).
 */
function forPool(target: ConnectionTarget, principal: Principal): ConnectionTarget {
  if (target.transport === 'in-process') {
    const definition = target.definition;
    return { ...target, definition: { ...definition, create: () => definition.create({ principal }) } };
  }
  if (target.transport === 'stdio') return target;
  return { ...target, fetch: detachedSignalFetch(target.fetch) };
}

/** How to drop the credentials a remote target was opened with when the server refuses them (see HttpTarget). */
function refusalOf(target: ConnectionTarget): (() => boolean) | undefined {
  return target.transport !== 'stdio' && target.transport !== 'in-process' ? target.refuseCredentials : undefined;
}

/** The upstream OAuth side of a remote target opened with one. */
function oauthOf(target: ConnectionTarget): TargetAuthorization | undefined {
  return target.transport === 'streamable-http' || target.transport === 'sse' ? target.oauth : undefined;
}

/** When a session's OAuth token should be renewed: a quarter of its remaining lifetime before expiry, at most a minute. */
function staleAt(expiresAt: Date | null): number | undefined {
  if (!expiresAt) return undefined;
  const left = expiresAt.getTime() - Date.now();
  return expiresAt.getTime() - Math.min(60_000, Math.max(0, left / 4));
}

/**
 * One request to a server, routed as a tool call is: the same session pool, scope, outbound policy, OAuth tokens,
 * limits and audit. `tools/call` is one; reading a resource and getting a prompt are others (ServerContentService).
 */
export interface RoutedRequest {
  serverId: string;
  method: 'tools/call' | 'resources/read' | 'prompts/get';
  params: Record<string, unknown>;
  /** What is asked for, in error texts (`tool "x"`, `resource "uri"`, `prompt "name"`): its kind and name. */
  noun: 'tool' | 'resource' | 'prompt';
  name: string;
  /** The request itself, in error texts: `the call of tool "x"`. */
  label: string;
  /**
   * Whether the live server the caller may see holds what is asked for, as its last discovery found it: resolves,
   * or throws a NotFoundError that says where to look. `fresh` is false when the catalog may be behind (the first
   * check): throwing `stale` then has the catalog reloaded from the database and the check made again.
   */
  check(server: CatalogServer, fresh: boolean): Promise<void> | void;
  /** The audit record's action and what it says beyond the outcome (never arguments or results). */
  audit: { action: string; detail: Record<string, unknown> };
}

/** Thrown by a RoutedRequest's check against a catalog that may be behind: reload, then check again. */
export class StaleCatalog extends Error {
  constructor() {
    super('the catalog may be behind the database');
    this.name = 'StaleCatalog';
  }
}

/** The audit outcome of a call: `ok` and `tool_error` (the tool answered isError) reached the tool. */
export type CallOutcome =
  | 'ok'
  | 'tool_error'
  | 'not_found'
  | 'not_connected'
  | 'upstream_error'
  | 'timeout'
  | 'cancelled'
  | 'limit_exceeded'
  | 'stopped'
  | 'error';

function outcomeOf(err: unknown): CallOutcome {
  if (isLimitRefusal(err)) return 'limit_exceeded';
  if (err instanceof NotFoundError) return 'not_found';
  if (err instanceof ConflictError) return 'not_connected';
  if (err instanceof UpstreamTimeoutError) return 'timeout';
  if (err instanceof UpstreamError) return 'upstream_error';
  if (err instanceof ServiceUnavailableError) return 'stopped';
  return 'error';
}

/**
 * Tool calls, routed by the server's kind through the connector and the credentials its kind demands
 * (ConnectionTargetResolver: in-process for INTERNAL, the platform's for BUILT_IN, the tenant's for CUSTOM,
 * Pipedream's token and headers for INTEGRATION, the registration's for EXTERNAL). Only tools that the last
 * discovery found on a live server the caller may see are called. The upstream result comes back unchanged,
 * isError included. Sessions are pooled per server (and, for the in-process INTERNAL server, per caller,
 * whose scope it answers in). Every call is audited without its arguments or its result.
 */
@Injectable()
export class ToolCallService implements OnModuleDestroy {
  readonly pool = new McpSessionPool({ idleMs: SESSION_IDLE_MS });
  /** The secret values each session was opened with, to clean them out of error texts. */
  private readonly secrets = new WeakMap<McpSession, string[]>();
  /** How to drop the credentials a session was opened with when the server refuses them (see HttpTarget). */
  private readonly refusals = new WeakMap<McpSession, () => boolean>();
  /** The upstream OAuth side of each session opened with one, and when its token should be renewed. */
  private readonly authorizations = new WeakMap<McpSession, { oauth: TargetAuthorization; staleAt?: number }>();
  /** Calls in flight: a stop waits for them (within SHUTDOWN_TIMEOUT_MS) before it closes their sessions. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Set when the stop's bound ran out with calls in flight: those are cut, and say that the registry stopped. */
  private cut = false;

  constructor(
    @Inject(RUNTIME) private readonly runtime: Runtime,
    private readonly catalog: ToolCatalogService,
    private readonly servers: ServerRepository,
    private readonly tools: ToolRepository,
    private readonly sessions: ServerSessions,
    private readonly auditLog: CallAuditWriter,
    private readonly limiter: CallRateLimiter,
    private readonly callLimits: TenantCallLimits,
  ) {
    // A server reloaded (new tools, new address, new credentials) or gone: its sessions are not used again.
    catalog.onServerChanged((id) => this.pool.invalidate(`${id}:`));
  }

  call(principal: Principal, input: CallToolInput, context: CallToolContext = {}): Promise<CallToolResult> {
    const toolName = input.toolName;
    return this.route(
      principal,
      {
        serverId: input.serverId,
        method: 'tools/call',
        params: { name: toolName, arguments: input.arguments ?? {} },
        noun: 'tool',
        name: toolName,
        label: `the call of tool "${toolName}"`,
        check: async (server, fresh) => {
          if (server.tools.has(toolName)) return;
          if (!fresh) throw new StaleCatalog();
          const withheld = await this.tools.withheldReason(server.id, toolName);
          if (withheld) throw new NotFoundError(`tool "${toolName}" of server "${server.name}" is not served: ${WITHHELD[withheld]}`);
          throw new NotFoundError(`tool "${toolName}" not found on server "${server.name}"; get_server_info or search_tools lists its tools`);
        },
        audit: { action: 'tool.call', detail: { tool: toolName } },
      },
      context,
    ) as Promise<CallToolResult>;
  }

  /**
   * Sends one request to a server the caller may see, routed as a tool call is (see RoutedRequest), and answers
   * the server's result unchanged. Failures come back as domain errors (404, 409, 502, 504, 429, 503).
   */
  route(principal: Principal, request: RoutedRequest, context: CallToolContext = {}): Promise<Record<string, unknown>> {
    const call = this.routeTracked(principal, request, context);
    this.inFlight.add(call);
    const forget = () => this.inFlight.delete(call);
    call.then(forget, forget);
    return call;
  }

  private async routeTracked(principal: Principal, request: RoutedRequest, context: CallToolContext): Promise<Record<string, unknown>> {
    // A caller over its limit is refused before anything else, and not audited: a flood must not fill the log.
    await this.limiter.take(principal);
    // So is a tenant with as many calls in flight as its limit allows.
    const allowance = await this.callLimits.enter(principal);
    const started = performance.now();
    let server: CatalogServer | undefined;
    let outcome: CallOutcome = 'ok';
    let reason: string | undefined;
    try {
      server = await this.callable(principal, request);
      const result = await this.invoke(principal, server, request, context, allowance);
      if (result.isError === true) outcome = 'tool_error';
      return result;
    } catch (err) {
      // An answer cut off at a limit says which limit, whatever the transport made of the cut.
      const mapped = allowance.refused ?? this.toDomainError(err, server, request, context);
      outcome = context.signal?.aborted ? 'cancelled' : outcomeOf(mapped);
      if (mapped instanceof UpstreamError || mapped instanceof UpstreamTimeoutError) reason = mapped.message;
      throw mapped;
    } finally {
      allowance.release();
      this.audit(principal, request, server, outcome, performance.now() - started, context, reason);
    }
  }

  /** Writes the audit records of the calls made so far (tests, shutdown). */
  flushAudit(): Promise<void> {
    return this.auditLog.flush();
  }

  /** On a stop: the calls in flight finish within what is left of the bound; those still running then are cut. */
  async onModuleDestroy(): Promise<void> {
    this.runtime.shutdown.begin();
    if (this.inFlight.size > 0) {
      await settledWithin([...this.inFlight], this.runtime.shutdown.remainingMs());
      if (this.inFlight.size > 0) this.cut = true;
    }
    await this.pool.close();
    // The cut calls fail at once now; their answers (503) are written before the HTTP server closes.
    await settledWithin([...this.inFlight], 1000);
  }

  /**
   * The live server holding what is asked for, as the catalog has it; on a miss the database is asked, so that
   * a server or tool discovered a moment ago on another replica is callable at once and a refusal is precise.
   */
  private async callable(principal: Principal, request: RoutedRequest): Promise<CatalogServer> {
    const serverId = request.serverId;
    let server = this.catalog.find(principal, serverId);
    const holds = async (s: CatalogServer, fresh: boolean) => {
      try {
        await request.check(s, fresh);
        return true;
      } catch (err) {
        if (err instanceof StaleCatalog) return false;
        throw err;
      }
    };
    if (!server || !(await holds(server, false))) {
      const record = await this.servers.findById(serverId, principal);
      if (!record) throw new NotFoundError(`server ${serverId} not found`);
      await this.catalog.refresh(serverId);
      server = this.catalog.find(principal, serverId);
      if (!server) {
        // A disabled server's reason only repeats that it is disabled.
        const why = record.enabled
          ? `its status is ${statusToWire(record.status)}${record.statusReason ? ` (${record.statusReason})` : ''}`
          : 'it is disabled';
        throw new ConflictError(
          `server "${record.name}" cannot be called now: ${why}; ` +
            'its tools can be called once a discovery has connected it',
        );
      }
      await request.check(server, true);
    }
    return server;
  }

  private poolKey(principal: Principal, server: CatalogServer): string {
    // The INTERNAL server answers within its caller's scope: one session per caller, never shared.
    const caller = server.kind === ServerKind.INTERNAL ? `:${principal.keyId}:${principal.type === 'tenant' ? principal.tenantId : 'admin'}` : '';
    return `${server.id}:${server.generation}${caller}`;
  }

  /**
   * One call, and once more on a new session when upstream OAuth renewed the token the session carried (it was
   * about to expire, or the server refused it with 401 mid-call and the refresh succeeded).
   */
  private async invoke(
    principal: Principal,
    server: CatalogServer,
    request: RoutedRequest,
    context: CallToolContext,
    allowance: CallAllowance,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.invokeOnce(principal, server, request, context, allowance);
    } catch (err) {
      if (!(err instanceof FreshTokenNeeded) || context.signal?.aborted) throw err;
      this.pool.invalidate(this.poolKey(principal, server));
      return this.invokeOnce(principal, server, request, context, allowance, false);
    }
  }

  private async invokeOnce(
    principal: Principal,
    server: CatalogServer,
    request: RoutedRequest,
    context: CallToolContext,
    allowance: CallAllowance,
    mayRenew = true,
  ): Promise<Record<string, unknown>> {
    const { timeoutMs, maxTimeoutMs } = this.runtime.config.call;
    const phase = `${request.method} of "${request.name}"`;
    const result = await this.pool.use(
      this.poolKey(principal, server),
      () => this.open(principal, server),
      async (session) => {
        const authorization = this.authorizations.get(session);
        if (mayRenew && authorization?.staleAt !== undefined && Date.now() >= authorization.staleAt) throw new FreshTokenNeeded();
        // The maximum is enforced by aborting the request rather than by the SDK's maxTotalTimeout, because
        // an aborted request is also cancelled upstream (notifications/cancelled): the server stops working on it.
        const stop = new AbortController();
        const deadline = setTimeout(
          () => stop.abort(new McpFailure(McpFailureCode.Timeout, `no answer within the maximum of ${maxTimeoutMs} ms`)),
          maxTimeoutMs,
        );
        const callerLeft = () => stop.abort(context.signal?.reason);
        if (context.signal?.aborted) callerLeft();
        else context.signal?.addEventListener('abort', callerLeft, { once: true });
        try {
          // The answer's bytes are counted against the call's and the tenant's limits as they arrive.
          return await countingAnswers(allowance, () =>
            session.request(request.method, request.params, {
              signal: stop.signal,
              timeoutMs,
              // Progress from the server starts the timeout again (up to the maximum above).
              resetTimeoutOnProgress: true,
              onProgress: (p) => context.onProgress?.(p),
            }),
          );
        } catch (err) {
          if (allowance.refused) throw allowance.refused;
          // Whatever the server said is cleaned of the secrets this session was opened with.
          const failure = classifyError(err, phase, redactor(this.secrets.get(session) ?? []));
          // Refused credentials the registry obtains itself (Pipedream's token): the next session gets fresh ones.
          if (failure.code === McpFailureCode.Unauthorized) this.refusals.get(session)?.();
          if (mayRenew && authorization && (failure.code === McpFailureCode.Unauthorized || failure.code === McpFailureCode.Forbidden)) {
            if (await this.authorizedAgain(authorization.oauth, failure)) throw new FreshTokenNeeded();
          }
          throw failure;
        } finally {
          clearTimeout(deadline);
          context.signal?.removeEventListener('abort', callerLeft);
        }
      },
      context.signal,
    );
    // Transports that do not count an answer as it arrives (HTTP+SSE, stdio, in-process) have it measured whole.
    if (allowance.counted === 0) {
      try {
        allowance.take(Buffer.byteLength(JSON.stringify(result)));
      } catch {
        throw allowance.refused!;
      }
    }
    return result;
  }

  private async open(principal: Principal, server: CatalogServer): Promise<McpSession> {
    const record = await this.servers.findById(server.id, principal);
    const stored = record ? await this.servers.findCredentials(record.id) : null;
    if (!record || !stored) throw new NotFoundError(`server ${server.id} not found`);
    const timeoutMs = this.runtime.config.call.timeoutMs;
    /** Both tries within one timeout, counted from the first target's resolution. */
    let deadline: AbortSignal | undefined;
    const options = (): ConnectOptions => ({
      signal: (deadline ??= AbortSignal.timeout(timeoutMs)),
      requestTimeoutMs: timeoutMs,
      // Tenant servers are reached only at addresses the outbound policy allows (t.lookup), checked as each connection opens.
      streamableHttpTransport: (h) => new PooledHttpTransport(h.url, { headers: h.headers, lookup: h.lookup, onChallenge: h.oauth?.record }),
    });
    /** The target of the last try, to learn from its refusal: its credentials to drop, its OAuth side. */
    let tried: ConnectionTarget | undefined;
    const connect = () => this.sessions.open(record, stored, options, (resolved) => (tried = forPool(resolved, principal)));
    let opened: OpenedSession;
    try {
      opened = await connect();
    } catch (err) {
      if (!tried) throw err;
      if (err instanceof McpFailure && err.code === McpFailureCode.Unauthorized) refusalOf(tried)?.();
      const oauth = oauthOf(tried);
      if (!oauth || !(err instanceof McpFailure) || !(await this.authorizedAgain(oauth, err))) throw err;
      // A fresh token: connected once more with it.
      opened = await connect();
    }
    const { session, target } = opened;
    this.secrets.set(session, target.secrets);
    const refuse = refusalOf(target);
    if (refuse) this.refusals.set(session, refuse);
    const oauth = oauthOf(target);
    if (oauth) this.authorizations.set(session, { oauth, staleAt: staleAt(oauth.expiresAt) });
    return session;
  }

  /**
   * A server refused a call or a connection for want of OAuth: whether upstream OAuth has a fresh token for one
   * more try. When it has none, the failure it gives (authorization required or expired) is thrown.
   */
  private async authorizedAgain(oauth: TargetAuthorization, failure: McpFailure): Promise<boolean> {
    if (failure.code !== McpFailureCode.Unauthorized && failure.code !== McpFailureCode.Forbidden) return false;
    const verdict = await oauth.refused(failure.httpStatus);
    if (verdict.retry) return true;
    if (verdict.failure) throw verdict.failure;
    return false;
  }

  /** A failure of the upstream as a 502 or 504; a domain error as it is; anything else is a bug and stays one (500). */
  private toDomainError(err: unknown, server: CatalogServer | undefined, request: RoutedRequest, context: CallToolContext): unknown {
    if (err instanceof DomainError) return err;
    const name = server ? `"${server.name}"` : request.serverId;
    if (this.cut) {
      // Not the server's failure: the registry closed the session at the end of its shutdown bound.
      return new ServiceUnavailableError(
        `the registry stopped before ${request.label} on server ${name} finished ` +
          `(it waits ${this.runtime.config.shutdownTimeoutMs} ms for calls in flight when it stops); call again`,
      );
    }
    const failure = classifyError(err, `${request.method} of "${request.name}"`);
    if (!(err instanceof McpFailure) && failure.code === McpFailureCode.Unexpected) return err;
    if (context.signal?.aborted) return new UpstreamError(`${request.label} on server ${name} was cancelled by the caller`);
    if (failure.code === McpFailureCode.Timeout) {
      const { timeoutMs, maxTimeoutMs } = this.runtime.config.call;
      return new UpstreamTimeoutError(
        `server ${name} did not answer ${request.noun} "${request.name}" in time (${timeoutMs} ms without progress, at most ${maxTimeoutMs} ms in all)`,
      );
    }
    // McpFailure messages carry no secret: the connector and invoke() clean them of the ones sent upstream.
    return new UpstreamError(`server ${name} failed ${request.label}: ${failure.message}`);
  }

  private audit(
    principal: Principal,
    request: RoutedRequest,
    server: CatalogServer | undefined,
    outcome: CallOutcome,
    ms: number,
    context: CallToolContext,
    reason: string | undefined,
  ): void {
    this.auditLog.add({
      actorType: principal.type,
      actorId: principal.keyId,
      tenantId: server?.tenantId ?? (principal.type === 'tenant' ? principal.tenantId : null),
      action: request.audit.action,
      resourceType: 'server',
      resourceId: request.serverId,
      outcome,
      durationMs: Math.round(ms),
      // Never the arguments or the result: they may hold anything the user or the tool handled.
      detail: { ...request.audit.detail, via: context.channel ?? 'rpc', ...(server ? { server: server.name } : {}), ...(reason ? { reason } : {}) },
    });
  }
}

/** Waits until every promise has settled, or `ms` has passed. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
