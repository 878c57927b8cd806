import { APP_CONFIG, AppConfig } from '@app/config';
import { AuditRepository, ServerRepository } from '@app/database';
import {
  ConflictError,
  DomainError,
  NotFoundError,
  Principal,
  ServerKind,
  statusToWire,
  UpstreamError,
  UpstreamTimeoutError,
} from '@app/domain';
import {
  classifyError,
  ConnectionTarget,
  ConnectionTargetResolver,
  McpConnector,
  McpFailure,
  McpFailureCode,
  McpSession,
  McpSessionPool,
  redactor,
} from '@app/mcp';
import type { CallToolContext, CallToolInput } from '@app/registry';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { CallRateLimiter } from './call-rate-limiter';
import { CatalogServer, ToolCatalogService } from './tool-catalog.service';

/** How long an upstream session may sit unused before it is closed. */
export const SESSION_IDLE_MS = 60_000;

/** The audit outcome of a call: `ok` and `tool_error` (the tool answered isError) reached the tool. */
export type CallOutcome = 'ok' | 'tool_error' | 'not_found' | 'not_connected' | 'upstream_error' | 'timeout' | 'cancelled' | 'error';

function outcomeOf(err: unknown): CallOutcome {
  if (err instanceof NotFoundError) return 'not_found';
  if (err instanceof ConflictError) return 'not_connected';
  if (err instanceof UpstreamTimeoutError) return 'timeout';
  if (err instanceof UpstreamError) return 'upstream_error';
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
  private readonly logger = new Logger(ToolCallService.name);
  readonly pool = new McpSessionPool({ idleMs: SESSION_IDLE_MS });
  /** The secret values each session was opened with, to clean them out of error texts. */
  private readonly secrets = new WeakMap<McpSession, string[]>();
  private readonly audits = new Set<Promise<void>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: ToolCatalogService,
    private readonly servers: ServerRepository,
    private readonly resolver: ConnectionTargetResolver,
    private readonly connector: McpConnector,
    private readonly auditLog: AuditRepository,
    private readonly limiter: CallRateLimiter,
  ) {
    // A server reloaded (new tools, new address, new credentials) or gone: its sessions are not used again.
    catalog.onServerChanged((id) => this.pool.invalidate(`${id}:`));
  }

  async call(principal: Principal, input: CallToolInput, context: CallToolContext = {}): Promise<CallToolResult> {
    // A caller over its limit is refused before anything else, and not audited: a flood must not fill the log.
    await this.limiter.take(principal);
    const started = performance.now();
    let server: CatalogServer | undefined;
    let outcome: CallOutcome = 'ok';
    let reason: string | undefined;
    try {
      server = await this.callable(principal, input.serverId, input.toolName);
      const result = await this.invoke(principal, server, input, context);
      if (result.isError === true) outcome = 'tool_error';
      return result;
    } catch (err) {
      const mapped = this.toDomainError(err, server, input, context);
      outcome = context.signal?.aborted ? 'cancelled' : outcomeOf(mapped);
      if (err instanceof McpFailure || mapped instanceof UpstreamError || mapped instanceof UpstreamTimeoutError) reason = mapped.message;
      throw mapped;
    } finally {
      this.audit(principal, input, server, outcome, performance.now() - started, context, reason);
    }
  }

  /** Waits for the audit records still being written (shutdown, tests). */
  async flushAudit(): Promise<void> {
    while (this.audits.size > 0) await Promise.all([...this.audits]);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.close();
    await this.flushAudit();
  }

  /**
   * The live server holding the tool, as the catalog has it; on a miss the database is asked, so that a
   * server or tool discovered a moment ago on another replica is callable at once and a refusal is precise.
   */
  private async callable(principal: Principal, serverId: string, toolName: string): Promise<CatalogServer> {
    let server = this.catalog.find(principal, serverId);
    if (!server || !server.tools.has(toolName)) {
      const record = await this.servers.findById(serverId, principal);
      if (!record) throw new NotFoundError(`server ${serverId} not found`);
      await this.catalog.refresh(serverId);
      server = this.catalog.find(principal, serverId);
      if (!server) {
        const why = record.enabled ? `its status is ${statusToWire(record.status)}` : 'it is disabled';
        throw new ConflictError(
          `server "${record.name}" cannot be called now: ${why}${record.statusReason ? ` (${record.statusReason})` : ''}; ` +
            'its tools can be called once a discovery has connected it',
        );
      }
      if (!server.tools.has(toolName)) {
        throw new NotFoundError(`tool "${toolName}" not found on server "${server.name}"; get_server_info or search_tools lists its tools`);
      }
    }
    return server;
  }

  private poolKey(principal: Principal, server: CatalogServer): string {
    // The INTERNAL server answers within its caller's scope: one session per caller, never shared.
    const caller = server.kind === ServerKind.INTERNAL ? `:${principal.keyId}:${principal.type === 'tenant' ? principal.tenantId : 'admin'}` : '';
    return `${server.id}:${server.generation}${caller}`;
  }

  private async invoke(principal: Principal, server: CatalogServer, input: CallToolInput, context: CallToolContext): Promise<CallToolResult> {
    const { timeoutMs, maxTimeoutMs } = this.config.call;
    const params = { name: input.toolName, arguments: input.arguments ?? {} };
    const result = await this.pool.use(
      this.poolKey(principal, server),
      () => this.open(principal, server),
      (session) => {
        // The maximum is a signal rather than the SDK's maxTotalTimeout, because an aborted request is also
        // cancelled upstream (notifications/cancelled), so the server stops working on it.
        const deadline = AbortSignal.timeout(maxTimeoutMs);
        return session
          .request('tools/call', params, {
            signal: context.signal ? AbortSignal.any([context.signal, deadline]) : deadline,
            timeoutMs,
            // Progress from the server starts the timeout again (up to the maximum above).
            resetTimeoutOnProgress: true,
            onProgress: (p) => context.onProgress?.(p),
          })
          .catch((err: unknown) => {
            // Whatever the server said is cleaned of the secrets this session was opened with.
            throw classifyError(err, `tools/call of "${input.toolName}"`, redactor(this.secrets.get(session) ?? []));
          });
      },
      context.signal,
    );
    return result as CallToolResult;
  }

  private async open(principal: Principal, server: CatalogServer): Promise<McpSession> {
    const record = await this.servers.findById(server.id, principal);
    const stored = record ? await this.servers.findCredentials(record.id) : null;
    if (!record || !stored) throw new NotFoundError(`server ${server.id} not found`);
    let target: ConnectionTarget = await this.resolver.resolve(record, stored);
    if (target.transport === 'in-process') {
      const definition = target.definition;
      target = { ...target, definition: { ...definition, create: () => definition.create({ principal }) } };
    }
    const timeoutMs = this.config.call.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const session = await this.connector.connect(target, { signal: deadline, requestTimeoutMs: timeoutMs });
    this.secrets.set(session, target.secrets);
    return session;
  }

  private toDomainError(err: unknown, server: CatalogServer | undefined, input: CallToolInput, context: CallToolContext): DomainError {
    if (err instanceof DomainError) return err;
    const name = server ? `"${server.name}"` : input.serverId;
    const failure = classifyError(err, `tools/call of "${input.toolName}"`);
    if (context.signal?.aborted) return new UpstreamError(`the call of tool "${input.toolName}" on server ${name} was cancelled by the caller`);
    if (failure.code === McpFailureCode.Timeout) {
      const { timeoutMs, maxTimeoutMs } = this.config.call;
      return new UpstreamTimeoutError(
        `server ${name} did not answer tool "${input.toolName}" in time (${timeoutMs} ms without progress, at most ${maxTimeoutMs} ms in all)`,
      );
    }
    // McpFailure messages carry no secret: the connector and invoke() clean them of the ones sent upstream.
    return new UpstreamError(`server ${name} failed the call of tool "${input.toolName}": ${failure.message}`);
  }

  private audit(
    principal: Principal,
    input: CallToolInput,
    server: CatalogServer | undefined,
    outcome: CallOutcome,
    ms: number,
    context: CallToolContext,
    reason: string | undefined,
  ): void {
    const write = this.auditLog
      .record({
        actorType: principal.type,
        actorId: principal.keyId,
        tenantId: server?.tenantId ?? (principal.type === 'tenant' ? principal.tenantId : null),
        action: 'tool.call',
        resourceType: 'server',
        resourceId: input.serverId,
        outcome,
        durationMs: Math.round(ms),
        // Never the arguments or the result: they may hold anything the user or the tool handled.
        detail: { tool: input.toolName, via: context.channel ?? 'rpc', ...(server ? { server: server.name } : {}), ...(reason ? { reason } : {}) },
      })
      .catch((err: Error) => this.logger.error({ err: err.message, serverId: input.serverId }, 'a tool call could not be audited'));
    this.audits.add(write);
    void write.finally(() => this.audits.delete(write));
  }
}

