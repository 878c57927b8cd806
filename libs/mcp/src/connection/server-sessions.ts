import { ServerRecord, StoredCredentials } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { ConnectionTarget } from './connection-target';
import { ConnectionTargetResolver } from './connection-target.resolver';
import { ConnectOptions, McpConnector } from './mcp-connector';
import { McpSession } from './mcp-session';

/** A session with a registered server, and the target it was opened with (its secrets, its OAuth side). */
export interface OpenedSession {
  session: McpSession;
  target: ConnectionTarget;
}

/**
 * Opens sessions with registered servers, the one way every part of the registry reaches one (discoveries, the
 * tool change watches, routed calls): the server's connection target is resolved now, with the credentials its
 * kind demands (ConnectionTargetResolver), then connected to (McpConnector).
 */
@Injectable()
export class ServerSessions {
  constructor(
    private readonly resolver: ConnectionTargetResolver,
    private readonly connector: McpConnector,
  ) {}

  /**
   * Resolves the server's target (its credentials read afresh, so that a renewed OAuth token is used), lets
   * `prepare` adapt it, and connects to it with the options made for it. `prepare` sees the target before the
   * connect, also one that then fails.
   */
  async open(
    server: ServerRecord,
    stored: StoredCredentials,
    options: (target: ConnectionTarget) => ConnectOptions,
    prepare: (target: ConnectionTarget) => ConnectionTarget = (target) => target,
  ): Promise<OpenedSession> {
    const target = prepare(await this.resolver.resolve(server, stored));
    return { session: await this.connector.connect(target, options(target)), target };
  }
}
