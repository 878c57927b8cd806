import { KIND_WIRE_NAMES, REQUEST_LIMITS, STATUS_WIRE_NAMES } from '@app/domain';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@app/database';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsEntityId } from '../common/ids';
import { IsOptionalNotNull, IsWireKind, IsWireStatus } from '../common/validators';
import { ToolDefinitionDto } from '../servers/server.dto';
import { PageOf } from '../common/page.dto';
import { TextList } from '../common/api-fields';

export class GetServerInfoDto {
  @ApiProperty({ description: 'The server (its id, from mcp-list-servers or mcp-search-tools)' })
  @IsEntityId()
  serverId!: string;
}

export class ListServersRpcDto {
  @ApiPropertyOptional({
    description: 'Only this kind: canonical name or number',
    oneOf: [{ type: 'string', enum: KIND_WIRE_NAMES }, { type: 'integer', minimum: 1, maximum: 5 }],
  })
  @IsOptionalNotNull()
  @IsWireKind()
  kind?: string | number;

  @ApiPropertyOptional({
    description: 'Only this status: canonical name or number',
    oneOf: [{ type: 'string', enum: STATUS_WIRE_NAMES }, { type: 'integer', minimum: 1, maximum: 4 }],
  })
  @IsOptionalNotNull()
  @IsWireStatus()
  status?: string | number;

  @ApiPropertyOptional({ description: `Servers per page (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE})`, minimum: 1, maximum: MAX_PAGE_SIZE })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  pageSize?: number;

  @ApiPropertyOptional({ description: 'nextPageToken of the previous page', maxLength: REQUEST_LIMITS.pageTokenMaxLength })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(REQUEST_LIMITS.pageTokenMaxLength)
  pageToken?: string;
}

/** The reference contract's MCPServerInfo: exactly these fields. */
export class McpServerInfoDto {
  @ApiProperty({ description: 'Identifier of the MCP server' })
  serverId!: string;

  @ApiProperty({ description: 'Display name of the MCP server' })
  name!: string;

  @ApiProperty({ description: 'Version the server reported (empty until discovered)' })
  version!: string;

  @TextList('Capabilities reported by the server, e.g. ["tools","resources","prompts","logging"]')
  capabilities!: string[];

  @ApiProperty({
    description:
      "Additional attributes: the server's labels, and what discovery counted besides tools under the registry's keys " +
      '`dev.mcp-registry/resources`, `dev.mcp-registry/resource-templates` and `dev.mcp-registry/prompts` (decimal strings, ' +
      'present when the server declares the list and it was read)',
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  metadata!: Record<string, string>;

  @ApiProperty({ description: 'Current connection status', enum: STATUS_WIRE_NAMES })
  status!: string;

  @ApiProperty({ description: 'Tool definitions currently reported by the server', type: [ToolDefinitionDto] })
  availableTools!: ToolDefinitionDto[];

  @ApiProperty({ description: 'Ownership category', enum: KIND_WIRE_NAMES })
  kind!: string;
}

export class McpServerInfoPageDto extends PageOf(McpServerInfoDto, 'servers', 'Servers the caller may see, oldest first') {}
