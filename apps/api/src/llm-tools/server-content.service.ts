import { ServerListingRepository } from '@app/database';
import { MAX_KEY_LENGTH, storableText } from '@app/discovery';
import { InvalidInputError, NotFoundError, Principal, uriMatchesTemplate } from '@app/domain';
import type { CallToolContext } from '@app/mcp-server';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { Injectable } from '@nestjs/common';
import { ToolCallService } from './tool-call.service';

export interface ReadResourceInput {
  serverId: string;
  /** A URI the server listed, or one of its resource templates expands to. */
  uri: string;
}

export interface GetPromptInput {
  serverId: string;
  /** A prompt the server listed. */
  name: string;
  arguments?: Record<string, string>;
}

/** Bounds of what a caller may send on: a prompt's arguments. */
const MAX_PROMPT_ARGUMENTS = 64;
const MAX_ARGUMENT_NAME = 256;
const MAX_ARGUMENT_VALUE = 64 * 1024;
/** How much of a URI the audit record keeps. */
const AUDITED_URI = 512;

function refuse(field: string, message: string): never {
  throw new InvalidInputError(`${field}: ${message}`, [{ field, message }]);
}

function checkName(field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.length === 0) refuse(field, 'must be a non-empty string');
  if (value.length > max) refuse(field, `must be at most ${max} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) refuse(field, 'must not contain control characters');
  return value;
}

function checkArguments(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse('arguments', 'must be an object of strings');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_PROMPT_ARGUMENTS) refuse('arguments', `must have at most ${MAX_PROMPT_ARGUMENTS} entries`);
  for (const [name, v] of entries) {
    if (name.length === 0 || name.length > MAX_ARGUMENT_NAME) refuse('arguments', `names must be 1 to ${MAX_ARGUMENT_NAME} characters`);
    if (typeof v !== 'string') refuse(`arguments.${name.slice(0, 64)}`, 'must be a string');
    if (v.length > MAX_ARGUMENT_VALUE) refuse(`arguments.${name.slice(0, 64)}`, `must be at most ${MAX_ARGUMENT_VALUE} characters`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * Reading a server's resources (`resources/read`) and getting its prompts (`prompts/get`) for a caller, routed
 * exactly as tool calls are (ToolCallService.route: the pooled session, the caller's scope, the outbound policy,
 * the server's credentials and OAuth tokens, the rate and in-flight limits, the result byte bounds, the audit).
 * Only what the last discovery found is asked for: a listed resource URI or one a listed template expands to, a
 * listed prompt. The server's answer comes back unchanged (it is untrusted: show it as text).
 */
@Injectable()
export class ServerContentService {
  constructor(
    private readonly calls: ToolCallService,
    private readonly listings: ServerListingRepository,
  ) {}

  async readResource(principal: Principal, input: ReadResourceInput, context: CallToolContext = {}): Promise<ReadResourceResult> {
    const uri = checkName('uri', input.uri, MAX_KEY_LENGTH);
    return this.calls.route(
      principal,
      {
        serverId: input.serverId,
        method: 'resources/read',
        params: { uri },
        noun: 'resource',
        name: uri,
        label: `the read of resource "${uri}"`,
        check: async (server) => {
          if (await this.listings.find(server.id, 'resource', uri)) return;
          const templates = await this.listings.templatesMatching(server.id, uri);
          if (templates.some((t) => uriMatchesTemplate(uri, t))) return;
          throw new NotFoundError(
            `resource "${uri}" not found on server "${server.name}": neither listed nor matched by one of its resource templates; ` +
              `GET /api/v1/servers/${server.id}/resources and /resource-templates list them`,
          );
        },
        audit: { action: 'resource.read', detail: { uri: uri.length > AUDITED_URI ? storableText(uri.slice(0, AUDITED_URI)) + '…' : uri } },
      },
      context,
    ) as Promise<ReadResourceResult>;
  }

  async getPrompt(principal: Principal, input: GetPromptInput, context: CallToolContext = {}): Promise<GetPromptResult> {
    const name = checkName('name', input.name, MAX_KEY_LENGTH);
    const args = checkArguments(input.arguments);
    return this.calls.route(
      principal,
      {
        serverId: input.serverId,
        method: 'prompts/get',
        params: { name, arguments: args },
        noun: 'prompt',
        name,
        label: `the get of prompt "${name}"`,
        check: async (server) => {
          if (await this.listings.find(server.id, 'prompt', name)) return;
          throw new NotFoundError(`prompt "${name}" not found on server "${server.name}"; GET /api/v1/servers/${server.id}/prompts lists them`);
        },
        // Never the arguments: they may hold anything the caller handled.
        audit: { action: 'prompt.get', detail: { prompt: name } },
      },
      context,
    ) as Promise<GetPromptResult>;
  }
}
