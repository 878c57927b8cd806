import { APP_CONFIG, AppConfig } from '@app/config';
import { ForbiddenError, Principal } from '@app/domain';
import { legacyServerOf, McpServerDefinition, modernServerOf } from '@app/mcp-server';
import { classifyInboundRequest, createMcpHandler, McpHttpHandler, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { HttpException, HttpStatus, Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';
import { hasDuplicateIds, JsonExchangeTransport, readPost } from './json-exchange.transport';
import { ListKind, MAX_CHANGE_STREAMS, McpChangeStreams, McpRoute } from './mcp-change-streams.service';
import { hostAllowed, originAllowed } from './mcp-request-policy';

/** The 2026-07-28 revision and later: a request naming one in MCP-Protocol-Version is of the modern era. */
const MODERN_VERSION = /^(\d{4})-\d{2}-\d{2}$/;
const isModernVersion = (v: unknown) => typeof v === 'string' && MODERN_VERSION.test(v) && v >= '2026-07-28';

/** SSE comment sent on idle change streams, so that proxies keep them open. */
const KEEPALIVE_MS = 15_000;

const LIST_CHANGED: Record<ListKind, string> = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
};

/** Writes a JSON answer in one go (without Express's ETag: an answer to a POST is never revalidated). */
function sendJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Whether a JSON-RPC message (or batch) calls a tool asking for progress: that answer is streamed (SSE). */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const msg = m as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } } | null;
    return msg?.method === 'tools/call' && msg.params?._meta?.progressToken !== undefined;
  });
}

/** A header's value as the Fetch API reads it (repeated headers joined). */
function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Whether the 2.x SDK's handler would serve this POST as 2025-era traffic: its own classification step
 * (what `isLegacyRequest` runs) on the already parsed body, without building a web Request for it.
 */
export function isLegacyPost(req: Request): boolean {
  const body = req.body as { params?: { _meta?: unknown } } | undefined;
  if (body === undefined) return true;
  const meta = typeof body === 'object' && body !== null ? body.params?._meta : undefined;
  // The common case, decided without the classifier (which costs tens of microseconds): one message that claims
  // no modern revision, in its envelope or its MCP-Protocol-Version header, is 2025-era traffic for it too.
  const claims = typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
  if (!Array.isArray(body) && !isModernVersion(req.headers['mcp-protocol-version']) && !claims) return true;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: header(req, 'mcp-protocol-version'),
    mcpMethodHeader: header(req, 'mcp-method'),
    mcpNameHeader: header(req, 'mcp-name'),
    body: req.body,
  });
  return outcome.kind === 'legacy';
}

/** The Node request as a web Request without its body (the parsed body travels beside it), for the 2.x SDK. */
function webRequest(req: Request, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, { method: req.method, headers, signal });
}

/**
 * Serves an MCP server definition at a route, in both protocol eras, from any replica, with no session
 * affinity. This is the seam every MCP route of the registry is built on:
 *
 * ```ts
 * // /mcp/v/{id}: a virtual server, scoped like /mcp by the caller's key
 * @Post('v/:id') post(@Param('id') id: string, @CurrentPrincipal() p: Principal, @Req() req: Request, @Res() res: Response) {
 *   return this.endpoint.serve({ name: `/mcp/v/${id}`, definitionFor: (principal) => this.virtual.definition(principal, id) }, p, req, res);
 * }
 * // and the same call from @Get('v/:id') and @Delete('v/:id') (the 2025-era change stream, and its 405)
 * ```
 *
 * `definitionFor` builds the McpServerDefinition (tools, resources, resource templates, prompts, completions)
 * for the caller on every request; throwing a domain error there answers problem+json before any MCP is
 * spoken (NotFoundError: 404). Change notifications need nothing more: open streams read the definition's
 * lists again after every catalog change and announce those that changed (see McpChangeStreams); a route
 * whose definition changes for other reasons has `McpChangeStreams.recheck(name)` called when it does.
 *
 * - 2025-era traffic (initialize, 2024-11-05 to 2025-11-25; no Mcp-Session-Id is ever handed out): each POST
 *   gets a fresh 1.x server over a lean JSON exchange (or the SDK's streaming transport when a tool call asks
 *   for progress); GET opens the standalone SSE stream that carries `notifications/*_list_changed`.
 * - 2026-07-28 traffic (a request carrying the `_meta` envelope: server/discover, header checks, ttlMs and
 *   cacheScope, subscriptions/listen) is served by the 2.x SDK's handler with a fresh 2.x server per request.
 * The era is chosen per request, by the 2.x SDK's own classification (classifyInboundRequest).
 */
@Injectable()
export class McpEndpoint implements OnModuleDestroy {
  private readonly logger = new Logger(McpEndpoint.name);
  private readonly modern: McpHttpHandler;
  /** Ends each 2025-era GET stream open now: a stop ends them rather than wait for their clients to hang up. */
  private readonly getStreams = new Set<() => void>();
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly changes: McpChangeStreams,
  ) {
    this.modern = createMcpHandler(
      (ctx) => {
        const definition = ctx.authInfo?.extra?.definition as McpServerDefinition | undefined;
        if (!definition) throw new Error('the 2026-07-28 handler was called without a server definition');
        return modernServerOf(definition);
      },
      {
        legacy: 'reject',
        bus: changes.bus,
        // Its listen streams are change streams like the GET streams: one bound for both.
        maxSubscriptions: MAX_CHANGE_STREAMS,
        keepAliveMs: KEEPALIVE_MS,
        onerror: (err) => this.logger.debug({ err: err.message }, 'a 2026-07-28 request was refused'),
      },
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    for (const end of [...this.getStreams]) end();
    await this.modern.close();
  }

  /** Host and Origin checks (DNS rebinding, cross-site pages): 403 before any MCP is spoken. */
  checkRequest(req: Request): void {
    if (!hostAllowed(req.headers.host, this.config)) {
      throw new ForbiddenError(`the Host header does not name this registry; set ALLOWED_HOSTS to accept other host names`);
    }
    const origin = req.headers.origin;
    if (!originAllowed(origin, req.headers.host, this.config)) {
      throw new ForbiddenError(`requests from pages of ${origin} are not accepted; list the origin in CORS_ORIGINS to allow it`);
    }
  }

  /** Serves one HTTP request (POST, GET or DELETE) of `route` for `principal`. */
  async serve(route: McpRoute, principal: Principal, req: Request, res: Response): Promise<void> {
    this.checkRequest(req);
    if (req.method === 'POST') return this.post(route, principal, req, res);
    if (req.method === 'GET' && !isModernVersion(req.headers['mcp-protocol-version'])) return this.changeStream(route, principal, req, res);
    // 2026-07-28 has no GET stream (subscriptions/listen replaces it), and no era has a session to DELETE.
    res.setHeader('Allow', req.method === 'GET' ? 'POST' : 'GET, POST');
    throw new HttpException(
      req.method === 'GET'
        ? 'GET is not part of the 2026-07-28 revision: open a subscriptions/listen request with POST to hear of changes'
        : `${req.method} is not supported: this endpoint keeps no sessions`,
      HttpStatus.METHOD_NOT_ALLOWED,
    );
  }

  private async post(route: McpRoute, principal: Principal, req: Request, res: Response): Promise<void> {
    if (!isLegacyPost(req)) return this.postModern(route, principal, req, res);
    const definition = await route.definitionFor(principal);
    // The SDK's streaming transport, too, keeps one waiter per id: a batch whose requests share an id is
    // answered by ours, which answers the repeated ids with an error (and such a batch gets no progress).
    if (wantsProgress(req.body) && !(Array.isArray(req.body) && hasDuplicateIds(req.body))) {
      const server = legacyServerOf(definition);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
      return;
    }
    const messages = readPost(req.headers, req.body);
    if (!Array.isArray(messages)) {
      sendJson(res, messages.status, messages.body);
      return;
    }
    const server = legacyServerOf(definition);
    const transport = new JsonExchangeTransport();
    // A client that hangs up before the answer cancels the work under way for it.
    res.on('close', () => void server.close());
    await server.connect(transport);
    const answers = await transport.exchange(messages, { requestInfo: { headers: req.headers } });
    if (answers.length === 0) {
      res.status(202).end();
    } else {
      sendJson(res, 200, Array.isArray(req.body) ? answers : answers[0]);
    }
  }

  private async postModern(route: McpRoute, principal: Principal, req: Request, res: Response): Promise<void> {
    // Before anything is awaited: a client that hangs up while the definition is read must still end what is
    // opened for it (a subscriptions/listen stream stays open until its signal aborts).
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const definition = await route.definitionFor(principal);
    const request = webRequest(req, abort.signal);
    const listens = (Array.isArray(req.body) ? req.body : [req.body]).some((m: { method?: unknown } | null) => m?.method === 'subscriptions/listen');
    if (listens && !this.changes.hasRoom()) throw new HttpException('too many change streams are open on this replica; try again shortly', HttpStatus.SERVICE_UNAVAILABLE);
    const authInfo = { token: '', clientId: principal.type === 'admin' ? 'admin' : principal.keyId, scopes: [], extra: { definition } };
    const response = await this.changes.modernScope.run({ route, principal, definition }, () => this.modern.fetch(request, { authInfo, parsedBody: req.body }));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => (headers[name] = value));
    res.writeHead(response.status, headers);
    if (!response.body) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    res.on('close', () => void reader.cancel().catch(() => undefined));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // The client went away, or the exchange was torn down: nothing more to send.
    }
    res.end();
  }

  /** The 2025-era standalone GET stream: `notifications/*_list_changed` whenever a list the caller sees changes. */
  private async changeStream(route: McpRoute, principal: Principal, req: Request, res: Response): Promise<void> {
    if (!String(req.headers.accept ?? '').includes('text/event-stream')) {
      throw new HttpException('Not Acceptable: the change stream is text/event-stream', HttpStatus.NOT_ACCEPTABLE);
    }
    const stopping = () => new HttpException('the registry is stopping; open the stream again (another replica will hold it)', HttpStatus.SERVICE_UNAVAILABLE);
    if (this.stopped) throw stopping();
    if (!this.changes.hasRoom()) throw new HttpException('too many change streams are open on this replica; try again shortly', HttpStatus.SERVICE_UNAVAILABLE);
    // Listened for before anything is awaited: a client gone while the definition is read opens no stream.
    let gone = false;
    let end!: () => void;
    const closed = new Promise<void>((resolve) => {
      end = () => {
        gone = true;
        resolve();
      };
    });
    res.on('close', end);
    this.getStreams.add(end);
    try {
      const definition = await route.definitionFor(principal);
      if (gone) {
        // The stop came while the definition was read: the client is answered, not left waiting.
        if (this.stopped && !res.writableEnded) throw stopping();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
      res.flushHeaders();
      res.write(': listening for list changes\n\n');
      const close = this.changes.open(
        route,
        principal,
        (kind) => res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED[kind] })}\n\n`),
        definition,
      );
      const keepalive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
      keepalive.unref();
      await closed;
      clearInterval(keepalive);
      close();
      // Ended by the stop (the client is still there): the stream ends cleanly, and its client may open it elsewhere.
      if (!res.writableEnded) res.end();
    } finally {
      this.getStreams.delete(end);
    }
  }
}
