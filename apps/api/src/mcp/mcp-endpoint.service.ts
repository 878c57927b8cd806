import { APP_CONFIG, AppConfig } from '@app/config';
import { ForbiddenError, Principal } from '@app/domain';
import { createRegistryMcpServer, REGISTRY_TOOLS, RegistryTools, registryVersion } from '@app/mcp-server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { hasDuplicateIds, JsonExchangeTransport, readPost } from './json-exchange.transport';
import { hostAllowed, originAllowed } from './mcp-request-policy';

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

/**
 * The registry as an MCP server over Streamable HTTP, stateless: every POST gets a fresh server scoped to
 * the caller's key and a fresh transport, so any replica answers any request and nothing is kept between
 * them. Answers are plain JSON (through a lean transport of our own), except a tool call that asks for
 * progress, which is streamed by the SDK's transport so that the upstream server's progress reaches the client.
 */
@Injectable()
export class McpEndpointService {
  /** The tools/list result: the same four tools for every caller, their JSON Schemas made once. */
  private toolsList?: Promise<unknown>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REGISTRY_TOOLS) private readonly tools: RegistryTools,
  ) {}

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

  /** Lists the tools once through a server of our own, as any client would, and keeps the result. */
  private listedTools(): Promise<unknown> {
    this.toolsList ??= (async () => {
      const server = createRegistryMcpServer(undefined, undefined, registryVersion());
      const transport = new JsonExchangeTransport();
      await server.connect(transport);
      const [answer] = await transport.exchange([{ jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} }], { requestInfo: { headers: {} } });
      await server.close();
      if (!('result' in answer)) throw new Error('the registry server did not list its tools');
      return answer.result;
    })().catch((err: unknown) => {
      this.toolsList = undefined;
      throw err;
    });
    return this.toolsList;
  }

  async handle(principal: Principal, req: Request, res: Response): Promise<void> {
    this.checkRequest(req);
    // The SDK's streaming transport, too, keeps one waiter per id: a batch whose requests share an id is
    // answered by ours, which answers the repeated ids with an error (and such a batch gets no progress).
    if (wantsProgress(req.body) && !(Array.isArray(req.body) && hasDuplicateIds(req.body))) {
      const server = createRegistryMcpServer(this.tools, principal, registryVersion());
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
    const [only] = messages;
    // A plain tools/list (the same four tools whoever asks) is answered without building a server.
    if (messages.length === 1 && 'method' in only && only.method === 'tools/list' && 'id' in only && only.params?.cursor === undefined) {
      const answer = { jsonrpc: '2.0', id: only.id, result: await this.listedTools() };
      sendJson(res, 200, Array.isArray(req.body) ? [answer] : answer);
      return;
    }
    const server = createRegistryMcpServer(this.tools, principal, registryVersion());
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
}
