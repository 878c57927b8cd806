import { ProtocolError, Server as ModernServer } from '@modelcontextprotocol/server';
import { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator as LegacyValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { AjvJsonSchemaValidator as ModernValidator } from '@modelcontextprotocol/server/validators/ajv';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpCallContext, McpCompletionRequest, McpDefinitionError, McpServerDefinition } from './server-definition';

type ListChanged = { listChanged: boolean };
/** The capabilities a definition can have: a subset of both SDKs' ServerCapabilities. */
export interface DefinitionCapabilities {
  tools?: ListChanged;
  resources?: ListChanged;
  prompts?: ListChanged;
  completions?: Record<string, never>;
}

/**
 * Every capability a definition has, with listChanged: the endpoint tells connected clients (a 2025-era GET
 * stream, a 2026-07-28 subscriptions/listen) when a list a caller sees has changed.
 */
export function capabilitiesOf(def: McpServerDefinition): DefinitionCapabilities {
  return {
    ...(def.tools ? { tools: { listChanged: true } } : {}),
    ...(def.resources ? { resources: { listChanged: true } } : {}),
    ...(def.prompts ? { prompts: { listChanged: true } } : {}),
    ...(def.complete ? { completions: {} } : {}),
  };
}

type ProgressToken = string | number;

function progressOf(token: ProgressToken | undefined, send: (n: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>): McpCallContext['progress'] {
  if (token === undefined) return undefined;
  return (p) => send({ method: 'notifications/progress', params: { progressToken: token, ...p } }).catch(() => undefined);
}

function completionRequestOf(params: { ref: { type: string; name?: string; uri?: string }; argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } }): McpCompletionRequest {
  const ref = params.ref.type === 'ref/prompt' ? { type: 'ref/prompt' as const, name: String(params.ref.name ?? '') } : { type: 'ref/resource' as const, uri: String(params.ref.uri ?? '') };
  return { ref, argument: params.argument, arguments: params.context?.arguments };
}

/** Runs a handler, turning a definition's error into the protocol error of the SDK that serves it. */
async function answer<T>(fn: () => Promise<T>, asError: (e: McpDefinitionError) => Error): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof McpDefinitionError) throw asError(err);
    throw err;
  }
}

/**
 * The JSON Schema validators the servers are given. A server is made for each request to /mcp, and each SDK
 * server would otherwise build an Ajv instance of its own (most of the cost of making one); it only uses it to
 * check an elicitation's answer, which a validator shared by every server checks as well.
 */
let validators: { legacy: LegacyValidator; modern: ModernValidator } | undefined;
function sharedValidators(): { legacy: LegacyValidator; modern: ModernValidator } {
  return (validators ??= { legacy: new LegacyValidator(), modern: new ModernValidator() });
}

/** The definition as a server of the initialize era (2024-11-05 to 2025-11-25), on the 1.x SDK. */
export function legacyServerOf(def: McpServerDefinition): LegacyServer {
  const server = new LegacyServer(
    { name: def.info.name, title: def.info.title, version: def.info.version },
    { capabilities: capabilitiesOf(def), instructions: def.instructions, jsonSchemaValidator: sharedValidators().legacy },
  );
  const wrap = <T>(fn: () => Promise<T>) => answer(fn, (e) => new McpError(e.code, e.message, e.data));
  const { tools, resources, prompts } = def;
  if (tools) {
    server.setRequestHandler(ListToolsRequestSchema, () => wrap(async () => ({ tools: await tools.list() })));
    server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
      wrap(() =>
        tools.call(req.params.name, req.params.arguments, {
          signal: extra.signal,
          progress: progressOf(req.params._meta?.progressToken, (n) => extra.sendNotification(n as never)),
        }),
      ),
    );
  }
  if (resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (req) => wrap(() => resources.list(req.params?.cursor)));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => wrap(async () => ({ resourceTemplates: await resources.templates() })));
    server.setRequestHandler(ReadResourceRequestSchema, (req, extra) => wrap(() => resources.read(req.params.uri, { signal: extra.signal })));
  }
  if (prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, () => wrap(async () => ({ prompts: await prompts.list() })));
    server.setRequestHandler(GetPromptRequestSchema, (req, extra) => wrap(() => prompts.get(req.params.name, req.params.arguments, { signal: extra.signal })));
  }
  const complete = def.complete?.bind(def);
  if (complete) {
    server.setRequestHandler(CompleteRequestSchema, (req, extra) =>
      wrap(async () => ({ completion: await complete(completionRequestOf(req.params), { signal: extra.signal }) })),
    );
  }
  return server;
}

/** The definition as a server of the 2026-07-28 revision (server/discover, no session), on the 2.x SDK. */
export function modernServerOf(def: McpServerDefinition): ModernServer {
  const hint = def.cacheHint;
  const server = new ModernServer(
    { name: def.info.name, title: def.info.title, version: def.info.version, description: def.info.description },
    {
      capabilities: capabilitiesOf(def),
      instructions: def.instructions,
      jsonSchemaValidator: sharedValidators().modern,
      ...(hint
        ? {
            cacheHints: {
              'tools/list': hint,
              'resources/list': hint,
              'resources/templates/list': hint,
              'prompts/list': hint,
              'server/discover': hint,
            },
          }
        : {}),
    },
  );
  const wrap = <T>(fn: () => Promise<T>) => answer(fn, (e) => new ProtocolError(e.code, e.message, e.data));
  const { tools, resources, prompts } = def;
  // The SDK's result types are its own copies of the same wire shapes; the 1.x shapes the definition uses
  // are cast through unknown at this boundary only.
  const as = <T>(value: unknown) => value as T;
  if (tools) {
    server.setRequestHandler('tools/list', () => wrap(async () => as({ tools: await tools.list() })));
    server.setRequestHandler('tools/call', (req, ctx) =>
      wrap(async () =>
        as(
          await tools.call(req.params.name, req.params.arguments, {
            signal: ctx.mcpReq.signal,
            progress: progressOf(ctx.mcpReq._meta?.progressToken as ProgressToken | undefined, (n) => ctx.mcpReq.notify(n)),
          }),
        ),
      ),
    );
  }
  if (resources) {
    server.setRequestHandler('resources/list', (req) => wrap(async () => as(await resources.list(req.params?.cursor))));
    server.setRequestHandler('resources/templates/list', () => wrap(async () => as({ resourceTemplates: await resources.templates() })));
    server.setRequestHandler('resources/read', (req, ctx) => wrap(async () => as(await resources.read(req.params.uri, { signal: ctx.mcpReq.signal }))));
  }
  if (prompts) {
    server.setRequestHandler('prompts/list', () => wrap(async () => as({ prompts: await prompts.list() })));
    server.setRequestHandler('prompts/get', (req, ctx) => wrap(async () => as(await prompts.get(req.params.name, req.params.arguments, { signal: ctx.mcpReq.signal }))));
  }
  const complete = def.complete?.bind(def);
  if (complete) {
    server.setRequestHandler('completion/complete', (req, ctx) =>
      wrap(async () => as({ completion: await complete(completionRequestOf(req.params as never), { signal: ctx.mcpReq.signal }) })),
    );
  }
  return server;
}
