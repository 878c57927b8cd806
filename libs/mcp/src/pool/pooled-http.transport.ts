import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessage, JSONRPCMessageSchema, RequestId } from '@modelcontextprotocol/sdk/types.js';
import http, { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ByteBudget, ByteCounter, currentAnswerCounter } from '../connection/byte-budget';

/** The largest answer accepted from a server (one JSON body, or one event of a stream). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A standalone stream that ended is opened again after this long. */
const STREAM_REOPEN_MS = 1000;
/** A standalone stream that lasted less than this counts as cut short. */
const SHORT_STREAM_MS = 10_000;
/** Streams cut short in a row after which the transport gives up and closes. */
const STREAM_RETRIES = 5;

/** An HTTP answer that is not a success; `status` lets the error classification read it. */
export class PooledHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PooledHttpError';
  }
}

export interface PooledHttpTransportOptions {
  /** Sent with every request (the server's configured headers and credentials). */
  headers: Record<string, string>;
  /** Resolves host names for new connections: the outbound policy's check, for tenant servers. */
  lookup?: LookupFunction;
  /** Connections kept open to the server at most. */
  maxSockets?: number;
  /** Counts every byte the server sends; an answer that passes it is cut off (a discovery's flood limit). */
  budget?: ByteBudget;
  /** Told of every 401/403 answer with its WWW-Authenticate header (upstream OAuth reads the challenge). */
  onChallenge?: (status: number, header: string | null) => void;
}

/**
 * The client side of Streamable HTTP for the sessions the registry keeps open to call tools: every message
 * is a POST on a keep-alive connection, and the answer (JSON, or an event stream carrying progress and then
 * the response) is read with Node's own streams. The standalone GET stream for messages the server sends
 * unasked is opened only when asked for (listen(): the change watcher's sessions; a tool call's progress
 * comes on its own POST). No resumption, no redirects. Answering one call this way costs about half of what
 * the SDK's fetch-based transport costs, which is most of what the registry adds to a call.
 */
export class PooledHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  sessionId?: string;
  private protocolVersion?: string;
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;
  private readonly inflight = new Set<http.ClientRequest>();
  private closed = false;
  /** Standalone streams in a row that ended soon after they were opened (see listen()). */
  private shortStreams = 0;

  constructor(
    private readonly url: URL,
    private readonly options: PooledHttpTransportOptions,
  ) {
    const secure = url.protocol === 'https:';
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 32, ...(options.lookup ? { lookup: options.lookup } : {}) };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.request = secure ? https.request : http.request;
  }

  async start(): Promise<void> {}

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** Resolves once the server accepted the message; what it answers arrives through onmessage. */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('Not connected'));
    const body = JSON.stringify(message);
    const requestId = 'method' in message && 'id' in message ? (message.id as RequestId) : undefined;
    // The call this request belongs to counts its answer's bytes (a tool call's result limit), if it asked to.
    const counter = requestId !== undefined ? currentAnswerCounter() : undefined;
    return this.post(body, requestId, counter).catch((err: NodeJS.ErrnoException & { staleSocket?: boolean }) => {
      // A kept-alive connection the server had already closed fails before the request reaches it: the
      // request is sent once more on a new connection (as Node's documentation advises for reused sockets).
      if (!err.staleSocket || this.closed) throw err;
      return this.post(body, requestId, counter);
    });
  }

  private post(body: string, requestId: RequestId | undefined, counter?: ByteCounter): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let answered = false;
      // A 404 means "unknown session" only for a request that named one; before that, the URL is wrong.
      const inSession = this.sessionId !== undefined;
      const req = this.request(this.url, { method: 'POST', headers: this.headers(body), agent: this.agent }, (res) => {
        answered = true;
        this.count(res, counter);
        const sid = res.headers['mcp-session-id'];
        if (typeof sid === 'string') this.sessionId = sid;
        const status = res.statusCode ?? 0;
        const type = String(res.headers['content-type'] ?? '');
        if (status === 202) {
          res.resume();
          return resolve();
        }
        if (status === 404 && inSession) {
          // The server does not know the session (it restarted or dropped it): said without the body, whose
          // JSON-RPC code (-32001) would otherwise read as a timeout rather than as a session to open anew.
          res.resume();
          return reject(new PooledHttpError(404, 'Error POSTing to endpoint (HTTP 404): the server does not know this session'));
        }
        if (status === 401 || status === 403) {
          const challenge = res.headers['www-authenticate'];
          this.options.onChallenge?.(status, typeof challenge === 'string' ? challenge : null);
        }
        if (status < 200 || status >= 300) {
          return readText(res).then(
            (text) => reject(new PooledHttpError(status, `Error POSTing to endpoint (HTTP ${status}): ${text}`)),
            reject,
          );
        }
        if (type.includes('text/event-stream')) {
          resolve();
          this.readEvents(res, requestId);
          return;
        }
        if (type.includes('application/json')) {
          return readText(res).then((text) => {
            try {
              const data = JSON.parse(text) as unknown;
              for (const m of Array.isArray(data) ? data : [data]) this.deliver(m);
              resolve();
            } catch (err) {
              reject(err);
            }
          }, reject);
        }
        res.resume();
        reject(new PooledHttpError(status, `Unexpected content type: ${type || 'none'}`));
      });
      this.inflight.add(req);
      req.on('close', () => this.inflight.delete(req));
      req.on('error', (err: NodeJS.ErrnoException) => {
        const stale = !answered && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
        reject(stale ? Object.assign(err, { staleSocket: true }) : err);
      });
      req.end(body);
    });
  }

  /**
   * Opens the standalone GET stream on which the server sends messages unasked (notifications/tools/
   * list_changed), and keeps it open while the transport lives: a stream that ends is opened again a second
   * later. Resolves once the stream is open, or at once when the server offers none (405, as the
   * specification allows). Rejects when the server refuses it otherwise. A server that refuses a stream
   * opened again, or ends STREAM_RETRIES streams in a row within seconds of opening them, ends the transport
   * (onclose): its session cannot hear the server.
   */
  listen(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closed) return reject(new Error('Not connected'));
      const headers: Record<string, string> = { ...this.options.headers, accept: 'text/event-stream' };
      if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
      if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
      const req = this.request(this.url, { method: 'GET', headers, agent: this.agent }, (res) => {
        const status = res.statusCode ?? 0;
        const type = String(res.headers['content-type'] ?? '');
        if (status === 405) {
          res.resume();
          return resolve();
        }
        if (status !== 200 || !type.includes('text/event-stream')) {
          res.resume();
          return reject(new PooledHttpError(status, `Error opening the server's event stream (HTTP ${status}${status === 200 ? `, ${type || 'no content type'}` : ''})`));
        }
        resolve();
        const openedAt = Date.now();
        this.readEvents(res, undefined, () => this.streamEnded(openedAt));
      });
      this.inflight.add(req);
      req.on('close', () => this.inflight.delete(req));
      req.on('error', reject);
      req.end();
    });
  }

  private streamEnded(openedAt: number): void {
    if (this.closed) return;
    this.shortStreams = Date.now() - openedAt < SHORT_STREAM_MS ? this.shortStreams + 1 : 0;
    if (this.shortStreams >= STREAM_RETRIES) {
      this.onerror?.(new Error(`the server ended its event stream ${STREAM_RETRIES} times in a row`));
      void this.close();
      return;
    }
    setTimeout(() => {
      if (this.closed) return;
      this.listen().catch((err: Error) => {
        this.onerror?.(err);
        void this.close();
      });
    }, STREAM_REOPEN_MS).unref();
  }

  /**
   * Counts the answer's bytes against the transport's budget and the call's counter as they arrive, and cuts
   * the answer off once either is spent.
   */
  private count(res: IncomingMessage, counter?: ByteCounter): void {
    const counters: ByteCounter[] = [this.options.budget, counter].filter((c): c is ByteCounter => c !== undefined);
    if (counters.length === 0) return;
    res.on('data', (chunk: Buffer | string) => {
      const n = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      try {
        for (const c of counters) c.take(n);
      } catch (exceeded) {
        res.destroy(exceeded as Error);
      }
    });
  }

  private headers(body: string): Record<string, string> {
    const headers: Record<string, string> = {
      ...this.options.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(Buffer.byteLength(body)),
    };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  private deliver(raw: unknown): boolean {
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.onerror?.(new Error('the server sent a message that is not JSON-RPC'));
      return false;
    }
    this.onmessage?.(parsed.data);
    return true;
  }

  /**
   * Reads an answer stream event by event. A stream that ends or breaks before answering its request is
   * answered for it with a "connection closed" error, so the call fails now rather than at its timeout.
   */
  private readEvents(res: IncomingMessage, requestId: RequestId | undefined, onEnd?: () => void): void {
    let buffer = '';
    let answered = requestId === undefined;
    const dispatch = (block: string) => {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        else if (line.startsWith('event:')) event = line.slice(6).trim();
      }
      if (event !== 'message' || data.length === 0) return;
      let message: unknown;
      try {
        message = JSON.parse(data.join('\n'));
      } catch {
        this.onerror?.(new Error('the server sent an event that is not JSON'));
        return;
      }
      const m = message as { id?: unknown; method?: unknown };
      if (this.deliver(message) && m.id === requestId && m.method === undefined) answered = true;
    };
    const unanswered = () => {
      if (answered) return;
      answered = true;
      this.onmessage?.({
        jsonrpc: '2.0',
        id: requestId as RequestId,
        error: { code: -32000, message: 'Connection closed: the server ended its answer stream without answering' },
      });
    };
    // Events are delivered one microtask apart, as a stream reader would: the SDK handles a notification
    // (progress) a microtask after receiving it, and it must see it before the response that follows it.
    let chain = Promise.resolve();
    const later = (fn: () => void) => {
      chain = chain.then(fn);
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
      if (buffer.length > MAX_MESSAGE_BYTES) {
        res.destroy(new Error(`the server sent an event larger than ${MAX_MESSAGE_BYTES} bytes`));
        return;
      }
      for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        later(() => dispatch(block));
      }
    });
    res.on('end', () => {
      const rest = buffer;
      buffer = '';
      later(() => {
        if (rest.trim()) dispatch(rest);
        unanswered();
      });
    });
    res.on('error', (err) => this.onerror?.(err));
    // Closed without an end: the connection broke in the middle of the stream.
    res.on('close', () => {
      later(unanswered);
      if (onEnd) later(onEnd);
    });
  }

  /** Ends the session on the server (DELETE), as the transport asks of clients that are done. */
  async terminateSession(): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId || this.closed) return;
    const headers: Record<string, string> = { ...this.options.headers, 'mcp-session-id': sessionId };
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    await new Promise<void>((resolve) => {
      const req = this.request(this.url, { method: 'DELETE', headers, agent: this.agent }, (res) => {
        res.resume();
        res.on('end', resolve);
        res.on('error', () => resolve());
      });
      req.on('error', () => resolve());
      req.end();
    });
    this.sessionId = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const req of this.inflight) req.destroy();
    this.inflight.clear();
    this.agent.destroy();
    this.onclose?.();
  }
}

function readText(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_MESSAGE_BYTES) res.destroy(new Error(`the server sent an answer larger than ${MAX_MESSAGE_BYTES} bytes`));
      else chunks.push(c);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('close', () => {
      if (!res.complete) reject(Object.assign(new Error('the server closed the connection in the middle of an answer'), { code: 'ECONNRESET' }));
    });
  });
}
