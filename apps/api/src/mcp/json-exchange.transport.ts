import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessage,
  JSONRPCMessageSchema,
  MessageExtraInfo,
  RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

/** The most messages one POST may carry (the SDK's own limit). */
export const MAX_BATCH = 100;

/**
 * A server-side transport for one stateless Streamable HTTP POST answered with plain JSON: the request
 * messages go in, the answers to them come out, and nothing else travels (notifications the server would
 * send mid-request have no channel in a JSON answer and are dropped; a caller who wants progress asks for it
 * and is served by the SDK's streaming transport instead). It spares each request the web-stream plumbing
 * of the SDK's transport, which costs more than the MCP work itself.
 */
export class JsonExchangeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly waiting = new Map<RequestId, (answer: JSONRPCMessage) => void>();
  private closed = false;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('id' in message) || message.id === undefined || !('result' in message || 'error' in message)) return;
    const answer = this.waiting.get(message.id);
    if (!answer) return;
    this.waiting.delete(message.id);
    answer(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, answer] of this.waiting) answer({ jsonrpc: '2.0', id, error: { code: -32000, message: 'Connection closed' } });
    this.waiting.clear();
    this.onclose?.();
  }

  /**
   * Delivers the messages and resolves with the answers to the requests among them, in their order. An
   * answer names its request only by id, so a request whose id an earlier request of the same batch already
   * uses could not be told apart from it: it is not run, and is answered with an Invalid Request error.
   */
  exchange(messages: JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
    const answers: Promise<JSONRPCMessage>[] = [];
    const delivered: JSONRPCMessage[] = [];
    for (const m of messages) {
      if (!isJSONRPCRequest(m)) {
        delivered.push(m);
      } else if (this.waiting.has(m.id)) {
        answers.push(Promise.resolve(duplicateIdError(m.id)));
      } else {
        answers.push(new Promise<JSONRPCMessage>((resolve) => this.waiting.set(m.id, resolve)));
        delivered.push(m);
      }
    }
    for (const m of delivered) this.onmessage?.(m, extra);
    return Promise.all(answers);
  }
}

/** The answer to a request of a batch whose id an earlier request of the batch already uses. */
export function duplicateIdError(id: RequestId): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: -32600, message: `Invalid Request: the id ${JSON.stringify(id)} is used by an earlier request of this batch; give each request its own id` },
  };
}

/** Whether two requests of these messages share an id. */
export function hasDuplicateIds(messages: unknown[]): boolean {
  const seen = new Set<unknown>();
  for (const m of messages) {
    const r = m as { id?: unknown; method?: unknown } | null;
    if (!r || typeof r.method !== 'string' || r.id === undefined) continue;
    if (seen.has(r.id)) return true;
    seen.add(r.id);
  }
  return false;
}

/** A refusal of the HTTP exchange itself, answered as the SDK's transport answers it: status and JSON-RPC error. */
export interface ExchangeRefusal {
  status: number;
  body: { jsonrpc: '2.0'; error: { code: number; message: string }; id: null };
}

function refuse(status: number, code: number, message: string): ExchangeRefusal {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

/**
 * The checks of the Streamable HTTP transport for a POST, on an already parsed body: Accept, Content-Type,
 * JSON-RPC shape, a lone initialize, the protocol version header. Returns the messages, or the refusal.
 */
export function readPost(headers: Record<string, string | string[] | undefined>, body: unknown): JSONRPCMessage[] | ExchangeRefusal {
  const accept = String(headers.accept ?? '');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return refuse(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  const type = String(headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return refuse(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  if (Array.isArray(body) && body.length > MAX_BATCH) return refuse(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
  const raw = Array.isArray(body) ? body : [body];
  const messages: JSONRPCMessage[] = [];
  for (const m of raw) {
    const parsed = JSONRPCMessageSchema.safeParse(m);
    if (!parsed.success) return refuse(400, -32700, 'Parse error: Invalid JSON-RPC message');
    messages.push(parsed.data);
  }
  if (messages.some(isInitializeRequest)) {
    if (messages.length > 1) return refuse(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  } else {
    const version = headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return refuse(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
  }
  return messages;
}
