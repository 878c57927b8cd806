import { DiscoveryRequests } from '@app/discovery';
import { ServerRepository } from '@app/database';
import { ConflictError, NotFoundError, Principal, ServerKind, ServerRecord } from '@app/domain';
import { CallbackParams, UpstreamOAuthService } from '@app/oauth';
import { Injectable } from '@nestjs/common';
import { assertWritable } from '../servers/server.rules';
import { AuthorizationForgottenDto, AuthorizationStartDto } from './oauth.dto';

/** What the callback page says. */
export interface CallbackPageContent {
  ok: boolean;
  title: string;
  detail: string;
}

/**
 * The person's side of upstream OAuth: starting an authorization (the server's owner), the authorization
 * server's redirect back, and forgetting a server's tokens. The OAuth client itself is UpstreamOAuthService.
 */
@Injectable()
export class OAuthFlowService {
  constructor(
    private readonly oauth: UpstreamOAuthService,
    private readonly servers: ServerRepository,
    private readonly requests: DiscoveryRequests,
  ) {}

  private async owned(principal: Principal, id: string, action: string): Promise<ServerRecord> {
    const server = await this.servers.findById(id, principal);
    if (!server) throw new NotFoundError(`server ${id} not found`);
    assertWritable(principal, server);
    if (server.kind !== ServerKind.CUSTOM && server.kind !== ServerKind.BUILT_IN) {
      throw new ConflictError(`${server.kind} servers do not use upstream OAuth, so there is no authorization to ${action}`);
    }
    return server;
  }

  async authorize(principal: Principal, id: string): Promise<AuthorizationStartDto> {
    const server = await this.owned(principal, id, 'start');
    return this.oauth.startAuthorization(server, principal);
  }

  async forget(principal: Principal, id: string): Promise<AuthorizationForgottenDto> {
    const server = await this.owned(principal, id, 'forget');
    return this.oauth.forget(server, principal);
  }

  async callback(params: CallbackParams): Promise<CallbackPageContent> {
    const outcome = await this.oauth.completeAuthorization(params);
    if (!outcome.ok) {
      const name = outcome.server ? ` "${outcome.server.name}"` : '';
      return { ok: false, title: `The server${name} was not connected`, detail: outcome.reason };
    }
    const server = outcome.server;
    if (server.enabled) {
      await this.requests.request([server.id], 'authorized');
    }
    return {
      ok: true,
      title: `The server "${server.name}" is authorized`,
      detail: server.enabled
        ? 'The registry holds its tokens and is discovering it now: its tools are listed in a moment. You can close this page.'
        : 'The registry holds its tokens. The server is disabled: enable it to discover and call it. You can close this page.',
    };
  }
}
