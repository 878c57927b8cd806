import { Global, Module } from '@nestjs/common';
import { ConnectionTargetResolver } from './connection/connection-target.resolver';
import { McpConnector } from './connection/mcp-connector';
import { StdioWorkspaces } from './connection/stdio-workspaces';
import { InProcessServers } from './in-process/in-process-servers';

/**
 * The MCP client side of the registry: the connector, the resolver that applies
 * credentials, and the process's in-process servers. Global, so that any module
 * can add an in-process server definition at start.
 */
@Global()
@Module({
  providers: [InProcessServers, McpConnector, ConnectionTargetResolver, StdioWorkspaces],
  exports: [InProcessServers, McpConnector, ConnectionTargetResolver, StdioWorkspaces],
})
export class McpModule {}
