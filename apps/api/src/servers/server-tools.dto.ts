import { REQUEST_LIMITS, TOOL_POLICIES, ToolPolicy } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsOptionalNotNull } from '../common/validators';
import { ServerScopedDto, ToolDefinitionDto } from './server.dto';
import { NullableText } from '../common/api-fields';

/** Bounds of an override (the definition it goes over is bounded by discovery: 256 KiB). */
export const OVERRIDE_LIMITS = { title: 512, description: 16 * 1024, annotationsBytes: 16 * 1024, toolName: REQUEST_LIMITS.toolNameMaxLength } as const;

export class FieldDiffDto {
  @ApiProperty({ description: 'The field of the definition', example: 'description' })
  field!: string;

  @ApiPropertyOptional({ description: 'Its value in the definition approved before (absent: the field was absent, or nothing was approved)' })
  before?: unknown;

  @ApiPropertyOptional({ description: 'Its value in the definition waiting (absent: the field is gone)' })
  after?: unknown;
}

export class ToolChangeDto {
  @ApiProperty({ description: "The tool's name (its upstream name: calls use it)" })
  toolName!: string;

  @ApiProperty({ description: 'pending: waits for a decision; rejected: kept out until its definition changes again or it is approved', enum: ['pending', 'rejected'] })
  status!: 'pending' | 'rejected';

  @ApiProperty({ description: 'added: no definition of the tool was approved before; changed: one was, and this one differs', enum: ['added', 'changed'] })
  kind!: 'added' | 'changed';

  @ApiProperty({ description: "sha256 of the waiting definition's RFC 8785 canonical JSON: what approve and reject take" })
  hash!: string;

  @NullableText('Hash of the definition approved before (null: none)')
  approvedHash!: string | null;

  @ApiProperty({ description: 'When this definition was first seen (ISO 8601)' })
  seenAt!: string;

  @ApiProperty({ description: 'Field by field, what differs from the definition approved before', type: [FieldDiffDto] })
  fields!: FieldDiffDto[];

  @ApiProperty({ description: 'The definition waiting, as discovered', type: ToolDefinitionDto })
  tool!: ToolDefinitionDto;

  @ApiProperty({ description: 'The definition approved before, as discovered then (null: none)', type: ToolDefinitionDto, nullable: true })
  approved!: ToolDefinitionDto | null;
}

export class ToolChangeListDto extends ServerScopedDto {
  @ApiProperty({ description: "The server's tool policy", enum: TOOL_POLICIES })
  toolPolicy!: ToolPolicy;

  @ApiProperty({ description: 'How many definitions wait for a decision' })
  pendingToolChanges!: number;

  @ApiProperty({ description: 'The pending changes, then the rejected ones, each in listing order', type: [ToolChangeDto] })
  changes!: ToolChangeDto[];
}

export class ToolDecisionBodyDto {
  @ApiProperty({ description: 'The hash of the definition decided on, as GET tool-changes showed it: another (it changed again meanwhile) is a 409', example: '9b74c9897bac770ffc029102a200c5de8f1e2d3c4b5a69788796a5b4c3d2e1f0' })
  @IsString()
  @Matches(/^[0-9a-f]{64}$/, { message: 'hash must be a sha256 in hex (64 characters), as GET tool-changes shows it' })
  hash!: string;
}

export class ToolDecisionDto extends ServerScopedDto {
  @ApiProperty({ description: 'The tool' })
  toolName!: string;

  @ApiProperty({ description: 'The definition decided on' })
  hash!: string;

  @ApiProperty({ description: 'approved: served from now on; rejected: kept out', enum: ['approved', 'rejected'] })
  approval!: 'approved' | 'rejected';

  @ApiProperty({ description: 'How many definitions of the server still wait' })
  pendingToolChanges!: number;
}

export class ToolOverrideBodyDto {
  @ApiPropertyOptional({ description: `The title callers see instead of the server's (at most ${OVERRIDE_LIMITS.title} characters); null or absent: the server's`, nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(OVERRIDE_LIMITS.title)
  title?: string | null;

  @ApiPropertyOptional({
    description: `The description callers see instead of the server's (at most ${OVERRIDE_LIMITS.description} characters); null or absent: the server's`,
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  @MaxLength(OVERRIDE_LIMITS.description)
  description?: string | null;

  @ApiPropertyOptional({
    description: `MCP tool annotations in place of the server's, whole (at most ${OVERRIDE_LIMITS.annotationsBytes / 1024} KiB of JSON); null or absent: the server's`,
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsObject()
  annotations?: Record<string, unknown> | null;

  @ApiPropertyOptional({ description: 'Disables the tool: not searchable, not callable, not listed (default false)' })
  @IsOptionalNotNull()
  @IsBoolean()
  disabled?: boolean;
}

export class ToolOverrideDto extends ServerScopedDto {
  @ApiProperty({ description: "The tool (its upstream name: calls use it)" })
  toolName!: string;

  @NullableText('The title over the server’s (null: the server’s)')
  title!: string | null;

  @NullableText('The description over the server’s (null: the server’s)')
  description!: string | null;

  @ApiProperty({ description: 'The annotations in place of the server’s (null: the server’s)', nullable: true, type: 'object', additionalProperties: true })
  annotations!: Record<string, unknown> | null;

  @ApiProperty({ description: 'Whether the tool is disabled' })
  disabled!: boolean;

  @ApiProperty({ description: 'Last put at (ISO 8601)' })
  updatedAt!: string;

  @ApiProperty({
    description: 'The tool as callers are served it now, the override marked in _meta (null: not served: disabled, or its definition waits or was rejected)',
    type: ToolDefinitionDto,
    nullable: true,
  })
  tool!: ToolDefinitionDto | null;
}

export class ToolOverrideListDto extends ServerScopedDto {
  @ApiProperty({ description: 'Its overrides, by tool name (also of tools the last discovery did not find)', type: [ToolOverrideDto] })
  overrides!: ToolOverrideDto[];
}
