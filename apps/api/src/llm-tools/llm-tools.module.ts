import { CatalogRepository, ChangeFeedModule } from '@app/database';
import { McpModule } from '@app/mcp';
import { REGISTRY_TOOLS } from '@app/mcp-server';
import { Module } from '@nestjs/common';
import { ServerInfoModule } from './server-info.module';
import { TenantModule } from '../tenants/tenant.module';
import { CallAuditWriter } from './call-audit.writer';
import { CallRateLimiter } from './call-rate-limiter';
import { LlmToolsController } from './llm-tools.controller';
import { RegistryToolsService } from './registry-tools.service';
import { ServerContentService } from './server-content.service';
import { TenantCallLimits } from './tenant-call-limits';
import { ToolCallService } from './tool-call.service';
import { ToolCatalogService } from './tool-catalog.service';

/** mcp-search-tools and mcp-call-tool, resource reads and prompt gets routed as calls are, and the RegistryTools that the registry's own MCP server answers with. */
@Module({
  imports: [McpModule, ServerInfoModule, TenantModule, ChangeFeedModule],
  controllers: [LlmToolsController],
  providers: [
    CatalogRepository,
    ToolCatalogService,
    CallRateLimiter,
    CallAuditWriter,
    TenantCallLimits,
    ToolCallService,
    ServerContentService,
    RegistryToolsService,
    { provide: REGISTRY_TOOLS, useExisting: RegistryToolsService },
  ],
  exports: [REGISTRY_TOOLS, RegistryToolsService, ToolCatalogService, ToolCallService, ServerContentService],
})
export class LlmToolsModule {}
