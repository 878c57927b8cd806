import { KIND_WIRE_NAMES, REQUEST_LIMITS } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsNotEmpty, IsObject, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsEntityId } from '../common/ids';
import { IsOptionalNotNull, IsWireKind } from '../common/validators';
import { ToolDefinitionDto } from '../servers/server.dto';

const { queryMaxLength, searchLimitMax, searchLimitDefault, kindsMaxItems, serverIdsMaxItems, toolNameMaxLength } = REQUEST_LIMITS;

export class SearchToolsRequestDto {
  @ApiProperty({
    description: 'The task in plain words, as a person would ask for it, e.g. "open a pull request" or "what is the weather in Paris"',
    maxLength: queryMaxLength,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(queryMaxLength)
  query!: string;

  @ApiPropertyOptional({ description: `How many tools to return (1 to ${searchLimitMax}, default ${searchLimitDefault})`, minimum: 1, maximum: searchLimitMax })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(searchLimitMax)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Only tools of servers of these kinds: canonical names or numbers',
    type: 'array',
    items: { oneOf: [{ type: 'string', enum: KIND_WIRE_NAMES }, { type: 'integer', minimum: 1, maximum: 5 }] },
    maxItems: kindsMaxItems,
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(kindsMaxItems)
  @IsWireKind({ each: true })
  kinds?: (string | number)[];

  @ApiPropertyOptional({ description: 'Only tools of these servers (their serverId)', type: [String], maxItems: serverIdsMaxItems })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(serverIdsMaxItems)
  @IsEntityId({ each: true })
  serverIds?: string[];
}

export class ToolSearchResultDto {
  @ApiProperty({ description: 'The server offering the tool: pass it to mcp-call-tool' })
  serverId!: string;

  @ApiProperty({ description: 'The name the server is registered under' })
  serverName!: string;

  @ApiProperty({ description: 'The tool as discovered, ready to hand to a model', type: ToolDefinitionDto })
  tool!: ToolDefinitionDto;

  @ApiProperty({ description: 'Relevance, higher is better; comparable only within one answer (0 for a best guess)' })
  score!: number;

  @ApiProperty({
    description:
      'How sure the search is that the tool serves the request: high (it matches nearly every word of the request, in some form, and scores close to the first result), medium (it matches at least half of it), low (a weak match, a match found only by reading the words as misspelt, or a best guess when nothing matched). See docs/search.md',
    enum: ['high', 'medium', 'low'],
    example: 'high',
  })
  confidence!: 'high' | 'medium' | 'low';
}

export class SearchToolsResponseDto {
  @ApiProperty({ description: 'The best matches first; only tools of connected servers the caller may see', type: [ToolSearchResultDto] })
  results!: ToolSearchResultDto[];
}

export class CallToolRequestDto {
  @ApiProperty({ description: 'The server of the tool (serverId from mcp-search-tools or mcp-get-server-info)', format: 'uuid' })
  @IsEntityId()
  serverId!: string;

  @ApiProperty({ description: 'The tool name exactly as discovered', maxLength: toolNameMaxLength })
  @IsString()
  @IsNotEmpty()
  @MaxLength(toolNameMaxLength)
  toolName!: string;

  @ApiPropertyOptional({ description: "Arguments matching the tool's inputSchema (passed to the tool as they are)", type: 'object', additionalProperties: true })
  @IsOptionalNotNull()
  @IsObject()
  arguments?: Record<string, unknown>;
}

/** The MCP CallToolResult, exactly as the upstream server answered it. */
export class CallToolResultDto {
  @ApiProperty({
    description: 'Content blocks (text, image, audio, resource links, embedded resources), as the tool returned them',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
  })
  content!: Record<string, unknown>[];

  @ApiPropertyOptional({ description: "Structured result, matching the tool's outputSchema when it has one", type: 'object', additionalProperties: true })
  structuredContent?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'True when the tool reports that it failed: the content says why (a model should read it and adapt)' })
  isError?: boolean;

  @ApiPropertyOptional({ description: 'Metadata the server attached', type: 'object', additionalProperties: true })
  _meta?: Record<string, unknown>;
}
