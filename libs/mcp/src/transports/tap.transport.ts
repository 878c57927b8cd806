import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Passes every message through unchanged and remembers what the initialize
 * exchange said: the SDK client keeps the negotiated protocol version to itself
 * on transports without `setProtocolVersion` (stdio, in-memory), and the
 * registry records it for every server.
 */
export class TapTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  protocolVersion?: string;
  private initializeId?: string | number;

  constructor(readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (err) => this.onerror?.(err);
    inner.onmessage = (message, extra) => {
      const m = message as { id?: string | number; result?: { protocolVersion?: unknown } };
      if (this.initializeId !== undefined && m.id === this.initializeId && typeof m.result?.protocolVersion === 'string') {
        this.protocolVersion = m.result.protocolVersion;
      }
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    const m = message as { method?: string; id?: string | number };
    if (m.method === 'initialize' && m.id !== undefined) this.initializeId = m.id;
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
