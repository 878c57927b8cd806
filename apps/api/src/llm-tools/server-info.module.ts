import { Module } from '@nestjs/common';
import { ServerInfoController } from './server-info.controller';
import { ServerInfoService } from './server-info.service';

/** mcp-get-server-info and mcp-list-servers; ServerInfoService also backs the registry's own MCP tools. */
@Module({
  controllers: [ServerInfoController],
  providers: [ServerInfoService],
  exports: [ServerInfoService],
})
export class ServerInfoModule {}
