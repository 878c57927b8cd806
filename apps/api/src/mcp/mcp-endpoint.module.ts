import { InProcessServers, McpModule } from '@app/mcp';
import { RegistryServerModule } from '@app/registry';
import { Global, Module } from '@nestjs/common';
import { LlmToolsModule } from '../llm-tools/llm-tools.module';
import { INTERNAL_SERVER_CATALOG } from '../servers/platform-servers.service';
import { McpController } from './mcp.controller';
import { McpEndpointService } from './mcp-endpoint.service';

/**
 * The /mcp endpoint, and the registry's own MCP server registered in-process, so that the start-up
 * registration of platform servers (INTERNAL_SERVER_CATALOG, global for it) records it as the INTERNAL server.
 */
@Global()
@Module({
  imports: [McpModule, RegistryServerModule, LlmToolsModule],
  controllers: [McpController],
  providers: [McpEndpointService, { provide: INTERNAL_SERVER_CATALOG, useExisting: InProcessServers }],
  exports: [INTERNAL_SERVER_CATALOG],
})
export class McpEndpointModule {}
