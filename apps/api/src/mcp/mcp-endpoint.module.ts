import { InProcessServers, McpModule } from '@app/mcp';
import { RegistryServerModule } from '@app/mcp-server';
import { Global, Module } from '@nestjs/common';
import { LOCAL_SERVER_CHANGES } from '../common/local-server-changes';
import { TOOL_CATALOG_READINESS } from '../health/health.service';
import { LlmToolsModule } from '../llm-tools/llm-tools.module';
import { ToolCatalogService } from '../llm-tools/tool-catalog.service';
import { INTERNAL_SERVER_CATALOG } from '../servers/platform-servers.service';
import { McpController } from './mcp.controller';
import { McpChangeStreams } from './mcp-change-streams.service';
import { McpEndpoint } from './mcp-endpoint.service';

/**
 * The /mcp endpoint, and the registry's own MCP server registered in-process, so that the start-up
 * registration of platform servers (INTERNAL_SERVER_CATALOG, global for it) records it as the INTERNAL server.
 * Readiness waits for the tool catalog (TOOL_CATALOG_READINESS, global for the health module); server changes
 * made through this process reach the catalog before they are answered (LOCAL_SERVER_CHANGES, global for the servers module).
 * McpEndpoint (serve a server definition at a route, both eras) and McpChangeStreams are exported for other MCP routes.
 */
@Global()
@Module({
  imports: [McpModule, RegistryServerModule, LlmToolsModule],
  controllers: [McpController],
  providers: [
    McpEndpoint,
    McpChangeStreams,
    { provide: INTERNAL_SERVER_CATALOG, useExisting: InProcessServers },
    { provide: TOOL_CATALOG_READINESS, useExisting: ToolCatalogService },
    { provide: LOCAL_SERVER_CHANGES, useExisting: ToolCatalogService },
  ],
  exports: [McpEndpoint, McpChangeStreams, INTERNAL_SERVER_CATALOG, TOOL_CATALOG_READINESS, LOCAL_SERVER_CHANGES],
})
export class McpEndpointModule {}
