import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SUPPORTED_PROTOCOL_VERSIONS as LEGACY_SUPPORTED_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { Injectable } from '@nestjs/common';
import { ChildProcessTransport } from '../transports/child-process.transport';
import { TapTransport } from '../transports/tap.transport';
import { ByteBudget, countingFetch, FetchLike } from './byte-budget';
import { classifyError, embeddedJsonRpcError, redactor } from './classify-error';
import { ConnectionTarget, HttpTarget, InProcessTarget, StdioTarget } from './connection-target';
import { raceAbort } from './race-abort';
import { McpFailure, McpFailureCode } from './mcp-failure';
import { Sdk1Session, McpSession, Sdk2Session, SessionParts, SessionTransport } from './mcp-session';

export interface ConnectOptions {
  /** Ends the connection attempt (the discovery's deadline, or shutdown). Its reason should be a McpFailure. */
  signal: AbortSignal;
  /** Counts the bytes the server sends; shared with the requests made on the session. */
  budget?: ByteBudget;
  /** Time limit of each request on the wire (the deadline in `signal` bounds the whole). */
  requestTimeoutMs?: number;
  /** Given a reader of the child's stderr as soon as a stdio server is started (it outlives a failed connect). */
  onStderr?: (read: () => string) => void;
  /**
   * Builds the Streamable HTTP transport in place of the SDK's (the tool-call path's lean transport for the
   * sessions it keeps open). It must fail as the SDK's does (HTTP failures carry their status) and may end
   * its session with terminateSession(). The fallbacks (HTTP+SSE, the 2026 revision) are unchanged.
   */
  streamableHttpTransport?: (target: HttpTarget) => Transport & { terminateSession?(): Promise<void>; listen?(): Promise<void> };
  /**
   * false: the session will not listen for messages the server sends unasked, so the standalone GET
   * stream of Streamable HTTP is not opened (a discovery reads answers only; the change watcher listens).
   */
  serverMessages?: boolean;
  /**
   * The protocol revision the server spoke last time (a discovery remembers it). A 2026-07-28 server is then
   * reached with that revision first, instead of after a refused `initialize` (for stdio, a process start
   * saved); if that attempt fails, the usual order follows.
   */
  lastProtocolVersion?: string | null;
}

/** How long the remembered revision is given before the usual order is tried (the server may have changed). */
const REMEMBERED_ATTEMPT_MS = 10_000;

type Sdk2Transport = Parameters<Sdk2Client['connect']>[0];

export const CLIENT_INFO = { name: 'mcp-registry', version: '1.0.0' };

/**
 * The `server/discover` revisions the 2.x client speaks, newest first: tried when
 * a server refuses `initialize`. (The SDK exports only its initialize-era list.)
 */
export const MODERN_VERSIONS = ['2026-07-28'];

/** The `initialize` revisions the 1.x client offers. */
export const LEGACY_VERSIONS = [...LEGACY_SUPPORTED_VERSIONS];

/** Whether a Streamable HTTP attempt failed in the way that means "this is an HTTP+SSE (2024-11-05) server". */
function isSseFallbackSignal(failure: McpFailure): boolean {
  return failure.httpStatus === 400 || failure.httpStatus === 404 || failure.httpStatus === 405;
}

/**
 * The modern revision to retry with when a server refused `initialize` because
 * it speaks only 2026-07-28 or later: the newest revision both sides support.
 */
function modernRetryVersion(err: unknown): string | undefined {
  const links: unknown[] = [];
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) links.push(e);
  for (const e of links) {
    const x = e as { code?: unknown; data?: unknown };
    const rpc = typeof x?.code === 'number' && x.code < 0 ? { code: x.code, data: x.data } : embeddedJsonRpcError(e);
    if (!rpc) continue;
    const supported = (rpc.data as { supported?: unknown } | undefined)?.supported;
    if (rpc.code === -32601 && !supported) return MODERN_VERSIONS[0];
    if (Array.isArray(supported)) {
      return MODERN_VERSIONS.find((v) => supported.includes(v));
    }
  }
  return undefined;
}

/**
 * The SDK client's schema validator, made only when the client first needs one (output schemas of tools it
 * listed itself): building it costs about a millisecond, which most sessions (a discovery) never need.
 */
function lazyValidator(): jsonSchemaValidator {
  let inner: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (inner ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

/**
 * A fetch that answers the standalone GET stream's request itself with 405, which the transport reads as
 * "this server offers no such stream": for sessions that wait for no message the server sends unasked.
 */
function withoutStandaloneStream(fetch: FetchLike): FetchLike {
  return (input, init) => {
    if ((init?.method ?? 'GET').toUpperCase() === 'GET') return Promise.resolve(new Response(null, { status: 405 }));
    return fetch(input, init);
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

function abortFailure(signal: AbortSignal, phase: string): McpFailure {
  const reason = signal.reason as unknown;
  if (reason instanceof McpFailure) return reason;
  return new McpFailure(McpFailureCode.Timeout, `${phase} was cut off before it finished`);
}

/** Rejects as soon as `signal` aborts, whatever `promise` is doing (an SSE stream that never sends its endpoint). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal, phase: string): Promise<T> {
  return raceAbort(promise, signal, () => abortFailure(signal, phase));
}

/**
 * Opens a client's session within the caller's signal: an abort kills the child and closes the client at once;
 * a failed open closes the client and what it stood on, and throws the transport's own failure when it has one.
 */
async function openWithin(
  client: { close(): Promise<void> },
  open: () => Promise<void>,
  options: ConnectOptions,
  extra: { child?: ChildProcessTransport; dispose?: () => Promise<void> },
  phase: string,
): Promise<void> {
  const onAbort = () => {
    extra.child?.kill();
    void client.close().catch(() => undefined);
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await abortable(open(), options.signal, phase);
  } catch (err) {
    await client.close().catch(() => undefined);
    await extra.dispose?.().catch(() => undefined);
    throw extra.child?.failure ?? err;
  } finally {
    options.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Opens sessions with MCP servers over every transport and both protocol eras.
 *
 * Era: the `initialize` handshake first, since every deployed server answers
 * it; a server that refuses it as an unsupported revision (`-32022`, or an
 * unknown method) is reached again with the 2026-07-28 client pinned to the
 * newest revision both sides list. Transport: a Streamable HTTP registration
 * whose POST is answered 400, 404 or 405 is tried once more as the deprecated
 * HTTP+SSE transport, as the specification's backwards-compatibility section
 * describes.
 */
@Injectable()
export class McpConnector {
  async connect(target: ConnectionTarget, options: ConnectOptions): Promise<McpSession> {
    const redact = redactor(target.secrets);
    const remembered = options.lastProtocolVersion && MODERN_VERSIONS.includes(options.lastProtocolVersion) ? options.lastProtocolVersion : undefined;
    if (remembered && (target.transport === 'stdio' || target.transport === 'streamable-http')) {
      const first = { ...options, requestTimeoutMs: Math.min(options.requestTimeoutMs ?? REMEMBERED_ATTEMPT_MS, REMEMBERED_ATTEMPT_MS) };
      try {
        if (target.transport === 'stdio') {
          const child = this.childFor(target, first);
          return await this.connectSdk2('stdio', child as unknown as Sdk2Transport, remembered, first, { child });
        }
        return await this.connectSdk2Http(target, remembered, first);
      } catch (err) {
        if (options.signal.aborted) throw abortFailure(options.signal, 'connecting');
        // Not (or no longer) a server of that revision: the usual order decides.
      }
    }
    try {
      switch (target.transport) {
        case 'in-process':
          return await this.connectInProcess(target, options);
        case 'stdio':
          return await this.connectStdio(target, options);
        case 'sse':
          return await this.connectSdk1Http('sse', target, options);
        case 'streamable-http':
          return await this.connectStreamableHttp(target, options);
      }
    } catch (err) {
      if (options.signal.aborted) throw abortFailure(options.signal, 'connecting');
      throw classifyError(err, 'initialize', redact);
    }
  }

  private async connectStreamableHttp(target: HttpTarget, options: ConnectOptions): Promise<McpSession> {
    try {
      return await this.connectSdk1Http('streamable-http', target, options);
    } catch (err) {
      if (options.signal.aborted) throw err;
      const status = classifyError(err, 'initialize', redactor(target.secrets)).httpStatus;
      if (options.streamableHttpTransport && status !== undefined && status >= 300 && status < 400) {
        // The lean transport does not follow redirects: the SDK's fetch-based one does, checking every hop.
        return this.connectStreamableHttp(target, { ...options, streamableHttpTransport: undefined });
      }
      const modern = modernRetryVersion(err);
      if (modern) return this.connectSdk2Http(target, modern, options);
      const failure = classifyError(err, 'initialize', redactor(target.secrets));
      if (!isSseFallbackSignal(failure)) throw failure;
      try {
        return await this.connectSdk1Http('sse', target, options);
      } catch (sseErr) {
        if (options.signal.aborted) throw sseErr;
        const sseFailure = classifyError(sseErr, 'initialize', redactor(target.secrets));
        // When neither transport answers, the Streamable HTTP answer is the one that explains it.
        if (sseFailure.httpStatus !== undefined || failure.code === McpFailureCode.NotFound) {
          throw new McpFailure(
            failure.code,
            `${failure.message} (the HTTP+SSE fallback was answered ${sseFailure.httpStatus !== undefined ? `HTTP ${sseFailure.httpStatus}` : 'with an error'} too)`,
            failure.httpStatus,
          );
        }
        throw sseFailure;
      }
    }
  }

  private fetchFor(target: HttpTarget, options: ConnectOptions) {
    return options.budget ? countingFetch(target.fetch, options.budget) : target.fetch;
  }

  private async connectSdk1Http(kind: 'streamable-http' | 'sse', target: HttpTarget, options: ConnectOptions): Promise<McpSession> {
    const fetch = this.fetchFor(target, options);
    if (kind === 'sse') {
      // The SSE transport reports a failed fetch by its message alone: a refusal of the outbound policy is kept
      // here, so that it is reported as what it is (permanent), not as an unexpected failure.
      let refused: Error | undefined;
      const watched: FetchLike = (input, init) =>
        fetch(input, init).catch((err: unknown) => {
          if ((err as { code?: unknown })?.code === 'OUTBOUND_BLOCKED') refused = err as Error;
          throw err;
        });
      try {
        return await this.connectSdk1(kind, new SSEClientTransport(target.url, { fetch: watched, requestInit: { headers: target.headers } }), options, {});
      } catch (err) {
        throw refused ?? err;
      }
    }
    const inner =
      options.streamableHttpTransport?.(target) ??
      new StreamableHTTPClientTransport(target.url, {
        fetch: options.serverMessages === false ? withoutStandaloneStream(fetch) : fetch,
        requestInit: { headers: target.headers },
        // A discovery reads one answer per request; a broken stream is retried by the job, not here.
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
      });
    // A session the registry is done with is ended on the server too (DELETE), as the transport asks clients to.
    const terminate = async () => {
      if (inner.sessionId && inner.terminateSession) await Promise.race([inner.terminateSession().catch(() => undefined), sleep(1000)]);
    };
    // A transport that opens the standalone stream on demand lets the session listen later (the change watcher).
    const listen = (inner as { listen?: () => Promise<void> }).listen?.bind(inner);
    return this.connectSdk1(kind, inner, options, {
      beforeClose: terminate,
      openServerStream: listen,
      canListen: listen !== undefined || options.serverMessages !== false,
    });
  }

  private async connectSdk1(
    kind: SessionTransport,
    inner: Transport,
    options: ConnectOptions,
    extra: { child?: ChildProcessTransport } & Pick<SessionParts, 'dispose' | 'beforeClose' | 'openServerStream' | 'canListen'>,
  ): Promise<Sdk1Session> {
    const tap = new TapTransport(inner);
    const client = new Sdk1Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: lazyValidator() });
    // Errors surface through the request that failed; the default handler would only print them.
    client.onerror = () => undefined;
    await openWithin(client, () => client.connect(tap, { signal: options.signal, timeout: options.requestTimeoutMs }), options, extra, 'initialize');
    return new Sdk1Session(client, {
      transport: kind,
      protocolVersion: tap.protocolVersion,
      transportFailure: () => extra.child?.failure,
      dispose: extra.dispose,
      beforeClose: extra.beforeClose,
      openServerStream: extra.openServerStream,
      canListen: extra.canListen,
    });
  }

  private async connectSdk2Http(target: HttpTarget, version: string, options: ConnectOptions): Promise<McpSession> {
    const transport = new Sdk2StreamableHTTPClientTransport(target.url, {
      fetch: this.fetchFor(target, options),
      requestInit: { headers: target.headers },
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    });
    return this.connectSdk2('streamable-http', transport, version, options, {});
  }

  private async connectSdk2(
    kind: SessionTransport,
    transport: Sdk2Transport,
    version: string,
    options: ConnectOptions,
    extra: { child?: ChildProcessTransport },
  ): Promise<Sdk2Session> {
    const client = new Sdk2Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: version } } });
    client.onerror = () => undefined;
    await openWithin(client, () => client.connect(transport, { signal: options.signal, timeout: options.requestTimeoutMs }), options, extra, 'server/discover');
    return new Sdk2Session(client, {
      transport: kind,
      protocolVersion: version,
      transportFailure: () => extra.child?.failure,
    });
  }

  private childFor(target: StdioTarget, options: ConnectOptions): ChildProcessTransport {
    const child = new ChildProcessTransport({ command: target.command, args: target.args, env: target.env, cwd: target.cwd, budget: options.budget });
    const redact = redactor(target.secrets);
    options.onStderr?.(() => child.stderrText(redact));
    return child;
  }

  private async connectStdio(target: StdioTarget, options: ConnectOptions): Promise<McpSession> {
    const child = this.childFor(target, options);
    try {
      return await this.connectSdk1('stdio', child, options, { child });
    } catch (err) {
      if (options.signal.aborted) throw err;
      const modern = modernRetryVersion(err);
      if (!modern) throw err;
      // A fresh process for the modern handshake: the first one was opened with a refused initialize.
      const second = this.childFor(target, options);
      return this.connectSdk2('stdio', second as unknown as Sdk2Transport, modern, options, { child: second });
    }
  }

  private async connectInProcess(target: InProcessTarget, options: ConnectOptions): Promise<McpSession> {
    const server = target.definition.create();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return this.connectSdk1('in-process', clientSide, options, { dispose: () => server.close() });
  }
}
