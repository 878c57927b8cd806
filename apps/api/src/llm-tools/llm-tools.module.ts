import { CatalogRepository } from '@app/database';
import { McpModule } from '@app/mcp';
import { REGISTRY_TOOLS } from '@app/registry';
import { Module } from '@nestjs/common';
import { ServerInfoModule } from '../llm/server-info.module';
import { CallAuditWriter } from './call-audit.writer';
import { CallRateLimiter } from './call-rate-limiter';
import { LlmToolsController } from './llm-tools.controller';
import { RegistryToolsService } from './registry-tools.service';
import { ToolCallService } from './tool-call.service';
import { ToolCatalogService } from './tool-catalog.service';

/** mcp-search-tools and mcp-call-tool, and the RegistryTools that the registry's own MCP server answers with. */
@Module({
  imports: [McpModule, ServerInfoModule],
  controllers: [LlmToolsController],
  providers: [
    CatalogRepository,
    ToolCatalogService,
    CallRateLimiter,
    CallAuditWriter,
    ToolCallService,
    RegistryToolsService,
    { provide: REGISTRY_TOOLS, useExisting: RegistryToolsService },
  ],
  exports: [REGISTRY_TOOLS, RegistryToolsService, ToolCatalogService, ToolCallService],
})
export class LlmToolsModule {}
