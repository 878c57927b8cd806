import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { EXAMPLE_IDS } from '../common/api-examples';
import { IsEntityId } from '../common/ids';
import { PageOf, PageQueryDto } from '../common/page.dto';
import { IsOptionalNotNull, IsResourceName } from '../common/validators';
import { NullableText, TextList } from '../common/api-fields';

/** Bounds of a virtual server. */
export const VIRTUAL_LIMITS = { name: 200, description: 2000, servers: 100, tools: 500, toolName: 256 } as const;

export class VirtualToolRefDto {
  @ApiProperty({ description: 'A server the caller may see (its own or a platform server)', example: EXAMPLE_IDS.server, format: 'uuid' })
  @IsEntityId()
  serverId!: string;

  @ApiProperty({ description: 'The name of one of its tools, as discovery found it', example: 'create_issue', maxLength: VIRTUAL_LIMITS.toolName })
  @IsString()
  @IsNotEmpty()
  @MaxLength(VIRTUAL_LIMITS.toolName)
  toolName!: string;
}

class VirtualMembersDto {
  @ApiPropertyOptional({
    description: `Whole servers: every tool each has now and later (up to ${VIRTUAL_LIMITS.servers})`,
    type: [String],
    example: [EXAMPLE_IDS.builtIn],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(VIRTUAL_LIMITS.servers)
  @IsEntityId({ each: true })
  servers?: string[];

  @ApiPropertyOptional({ description: `Single tools (up to ${VIRTUAL_LIMITS.tools}); a server is named here or in servers, not both`, type: [VirtualToolRefDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(VIRTUAL_LIMITS.tools)
  @ValidateNested({ each: true })
  @Type(() => VirtualToolRefDto)
  tools?: VirtualToolRefDto[];
}

export class CreateVirtualServerDto extends VirtualMembersDto {
  @ApiProperty({ description: `Name, unique per owner (1 to ${VIRTUAL_LIMITS.name} characters)`, example: 'support-desk', maxLength: VIRTUAL_LIMITS.name })
  @IsResourceName(VIRTUAL_LIMITS.name)
  name!: string;

  @ApiPropertyOptional({ description: 'What it is for, shown to MCP clients as its instructions', maxLength: VIRTUAL_LIMITS.description })
  @IsOptional()
  @IsString()
  @MaxLength(VIRTUAL_LIMITS.description)
  description?: string;
}

export class UpdateVirtualServerDto extends VirtualMembersDto {
  @ApiPropertyOptional({ description: 'A new name, unique per owner', maxLength: VIRTUAL_LIMITS.name })
  @IsOptionalNotNull()
  @IsResourceName(VIRTUAL_LIMITS.name)
  name?: string;

  @ApiPropertyOptional({ description: 'A new description; null removes it', type: String, nullable: true, maxLength: VIRTUAL_LIMITS.description })
  @IsOptional()
  @IsString()
  @MaxLength(VIRTUAL_LIMITS.description)
  description?: string | null;
}

export class ListVirtualServersQueryDto extends PageQueryDto {}

export class VirtualServerDto {
  @ApiProperty({ description: 'The id; the server is served at /mcp/v/{id}' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @NullableText("The owning tenant; null for the platform's (visible to every tenant)")
  tenantId!: string | null;

  @TextList('Whole member servers, in the order given')
  servers!: string[];

  @ApiProperty({ description: 'Single member tools, in the order given', type: [VirtualToolRefDto] })
  tools!: VirtualToolRefDto[];

  @ApiProperty({ description: 'Where MCP clients reach it (Streamable HTTP, the same API keys as /mcp)', example: `/mcp/v/${EXAMPLE_IDS.server}` })
  endpoint!: string;

  @ApiProperty()
  createdAt!: string;

  @ApiProperty()
  updatedAt!: string;
}

export class VirtualServerPageDto extends PageOf(VirtualServerDto, 'virtualServers') {}

export class VirtualToolDto {
  @ApiProperty({ description: 'The name MCP clients see and call', example: 'github__create_issue' })
  name!: string;

  @ApiProperty({ description: 'The member server' })
  serverId!: string;

  @ApiProperty({ description: 'The tool on that server' })
  toolName!: string;
}

export class VirtualToolListDto {
  @ApiProperty({ description: 'The tools listed now (live member servers only), in the order clients see them', type: [VirtualToolDto] })
  tools!: VirtualToolDto[];
}
