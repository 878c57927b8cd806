import { APP_CONFIG, AppConfig } from '@app/config';
import { CredentialsModule } from '@app/credentials';
import { FactoryProvider, Global, Module } from '@nestjs/common';
import { ConnectionTargetResolver } from './connection/connection-target.resolver';
import { McpConnector } from './connection/mcp-connector';
import { ServerSessions } from './connection/server-sessions';
import { StdioWorkspaces } from './connection/stdio-workspaces';
import { InProcessServers } from './in-process/in-process-servers';
import { LookupAll, OUTBOUND_LOOKUP, OutboundPolicy } from './outbound-policy';

/** The process's one outbound address policy (MCP_OUTBOUND_ALLOW), on the test's resolver where one is given. */
const outboundPolicyProvider: FactoryProvider<OutboundPolicy> = {
  provide: OutboundPolicy,
  useFactory: (config: AppConfig, lookup?: LookupAll) => new OutboundPolicy(config.outboundAllow, { lookup }),
  inject: [APP_CONFIG, { token: OUTBOUND_LOOKUP, optional: true }],
};

/**
 * The MCP client side of the registry: the connector, the resolver that applies
 * credentials, the two together (ServerSessions), the outbound address policy, and the process's in-process servers.
 * Global, so that any module can add an in-process server definition at start.
 */
@Global()
@Module({
  imports: [CredentialsModule],
  providers: [InProcessServers, McpConnector, ConnectionTargetResolver, ServerSessions, StdioWorkspaces, outboundPolicyProvider],
  exports: [InProcessServers, McpConnector, ConnectionTargetResolver, ServerSessions, StdioWorkspaces, OutboundPolicy, CredentialsModule],
})
export class McpModule {}
