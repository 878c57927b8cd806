import { Client as Sdk2Client } from '@modelcontextprotocol/client';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpFailure } from './mcp-failure';

/** The two protocol families: `initialize` (2024-11-05 … 2025-11-25) and `server/discover` (2026-07-28 on). */
export type ProtocolEra = 'legacy' | 'modern';

export type SessionTransport = 'streamable-http' | 'sse' | 'stdio' | 'in-process';

/** What a server says about itself. */
export interface ServerIdentity {
  name?: string;
  title?: string;
  version?: string;
}

export interface McpRequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Called for each notifications/progress the server sends about this request (asks the server for them). */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Each progress notification starts timeoutMs again, up to maxTotalTimeoutMs in all. */
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
}

/**
 * One open conversation with an MCP server, whichever era and transport it
 * uses. Results come back as plain objects: the caller validates what it
 * reads, so one malformed item does not cost the whole answer.
 */
export interface McpSession {
  readonly era: ProtocolEra;
  /** The transport actually in use (a Streamable HTTP registration may have fallen back to HTTP+SSE). */
  readonly transport: SessionTransport;
  readonly protocolVersion?: string;
  readonly serverInfo: ServerIdentity;
  readonly capabilities: Record<string, unknown>;
  readonly instructions?: string;
  request(method: string, params: Record<string, unknown> | undefined, options?: McpRequestOptions): Promise<Record<string, unknown>>;
  /** Calls `handler` on every `notifications/tools/list_changed` (on 2026-07-28, through `subscriptions/listen`). */
  watchToolListChanged(handler: () => void, options?: McpRequestOptions): Promise<void>;
  /**
   * Whether watchToolListChanged can hear the server on this session: false for a session opened without the
   * standalone stream of Streamable HTTP and no way to open it later (a discovery's, on the SDK's transport).
   */
  readonly canListen: boolean;
  /** Called once when the connection ends, whoever ended it. */
  onClose(handler: () => void): void;
  /** The failure the transport itself recorded (a child that exited, garbage on stdout), if any. */
  transportFailure(): McpFailure | undefined;
  close(): Promise<void>;
}

/** Accepts any JSON object: each field is checked by the reader, not by the SDK. */
export const LenientResult = z.looseObject({});

const DEFAULT_TIMEOUT_MS = 60_000;

export interface SessionParts {
  transport: SessionTransport;
  protocolVersion?: string;
  transportFailure: () => McpFailure | undefined;
  /** Extra teardown (an in-process server, a killed child). */
  dispose?: () => Promise<void>;
  /** Said to the server before the transport closes (ending an HTTP session). */
  beforeClose?: () => Promise<void>;
  /** Opens the channel for messages the server sends unasked, when the transport opens it only on demand. */
  openServerStream?: () => Promise<void>;
  /** false: this session cannot hear messages the server sends unasked (see McpSession.canListen). */
  canListen?: boolean;
}

/** What both SDK generations' clients offer a session, in the same shape. */
interface SdkClient {
  onclose?: () => void;
  getServerVersion(): { name: string; version: string; title?: string } | undefined;
  getServerCapabilities(): object | undefined;
  getInstructions(): string | undefined;
  request(request: never, schema: typeof LenientResult, options: object): Promise<unknown>;
  close(): Promise<void>;
}

/** Everything a session does the same on both SDK generations; the subclasses say what differs. */
abstract class BaseSession<C extends SdkClient> {
  private closeHandlers: (() => void)[] = [];
  private closed = false;

  constructor(
    protected readonly client: C,
    protected readonly parts: SessionParts,
  ) {
    const previous = client.onclose;
    client.onclose = () => {
      previous?.();
      this.fireClosed();
    };
  }

  get transport(): SessionTransport {
    return this.parts.transport;
  }

  get canListen(): boolean {
    return this.parts.canListen !== false;
  }

  get serverInfo(): ServerIdentity {
    const v = this.client.getServerVersion();
    return { name: v?.name, title: v?.title, version: v?.version };
  }

  get capabilities(): Record<string, unknown> {
    return (this.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  }

  get instructions(): string | undefined {
    return this.client.getInstructions();
  }

  async request(method: string, params: Record<string, unknown> | undefined, options: McpRequestOptions = {}): Promise<Record<string, unknown>> {
    const result = await this.client.request({ method, params } as never, LenientResult, {
      signal: options.signal,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      onprogress: options.onProgress,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress,
      maxTotalTimeout: options.maxTotalTimeoutMs,
    });
    return result as Record<string, unknown>;
  }

  onClose(handler: () => void): void {
    if (this.closed) handler();
    else this.closeHandlers.push(handler);
  }

  protected fireClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.closeHandlers.splice(0)) h();
  }

  transportFailure(): McpFailure | undefined {
    return this.parts.transportFailure();
  }

  async close(): Promise<void> {
    await this.parts.beforeClose?.().catch(() => undefined);
    await this.client.close().catch(() => undefined);
    await this.parts.dispose?.().catch(() => undefined);
    this.fireClosed();
  }
}

/** A session opened with the `initialize` handshake (SDK 1.x client). */
export class Sdk1Session extends BaseSession<Sdk1Client> implements McpSession {
  readonly era = 'legacy' as const;

  get protocolVersion(): string | undefined {
    return this.parts.protocolVersion;
  }

  async watchToolListChanged(handler: () => void): Promise<void> {
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => handler());
    await this.parts.openServerStream?.();
  }
}

/** A session on the 2026-07-28 revision: no initialize, `server/discover` instead (SDK 2.x client). */
export class Sdk2Session extends BaseSession<Sdk2Client> implements McpSession {
  readonly era = 'modern' as const;

  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion() ?? this.parts.protocolVersion;
  }

  async watchToolListChanged(handler: () => void, options: McpRequestOptions = {}): Promise<void> {
    this.client.setNotificationHandler('notifications/tools/list_changed', async () => handler());
    const subscription = await this.client.listen({ toolsListChanged: true }, { signal: options.signal, timeout: options.timeoutMs });
    void subscription.closed.then(() => this.fireClosed());
  }
}
