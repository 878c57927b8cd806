import { ChangeFeedModule } from '@app/database';
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { LlmToolsModule } from '../llm-tools/llm-tools.module';
import { VirtualContentService } from './virtual-content.service';
import { VirtualMcpController } from './virtual-mcp.controller';
import { VirtualMcpService } from './virtual-mcp.service';
import { VirtualServerController } from './virtual-server.controller';
import { VirtualServerService } from './virtual-server.service';
import { VirtualServerChanges } from './virtual-server-changes';
import { VirtualToolsService } from './virtual-tools.service';

/** Virtual servers: their REST API and their MCP endpoints (/mcp/v/{id}, on the MCP endpoint seam). */
@Module({
  imports: [AuditModule, LlmToolsModule, ChangeFeedModule],
  controllers: [VirtualServerController, VirtualMcpController],
  providers: [VirtualServerService, VirtualToolsService, VirtualContentService, VirtualMcpService, VirtualServerChanges],
})
export class VirtualServerModule {}
