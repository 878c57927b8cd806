import { canonicalId } from '@app/domain';
import { Transform } from 'class-transformer';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsEntityId } from '../common/ids';
import { PageOf, PageQueryDto } from '../common/page.dto';
import { JsonObject, NullableText } from '../common/api-fields';

export class AuditQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only events concerning this tenant' })
  @IsOptional()
  @IsEntityId()
  tenantId?: string;

  @ApiPropertyOptional({ description: 'Only events of this action, e.g. server.create', example: 'server.create' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(/^[a-z-]+\.[a-z-]+$/, { message: 'action must look like resource.verb, e.g. server.create' })
  action?: string;

  @ApiPropertyOptional({ description: 'Only events about this resource id' })
  @IsOptional()
  @Transform(({ value }) => canonicalId(value) ?? value)
  @IsString()
  @MaxLength(100)
  resourceId?: string;
}

export class AuditEventDto {
  @ApiProperty({ description: 'Event id' })
  id!: string;

  @ApiProperty({ description: 'When it happened (ISO 8601)' })
  at!: string;

  @ApiProperty({ description: 'Who acted', enum: ['admin', 'tenant', 'system'] })
  actorType!: string;

  @NullableText("The acting key's id ('admin' for the admin key), or what the platform acted on at start")
  actorId!: string | null;

  @NullableText('The tenant concerned (null for the platform)')
  tenantId!: string | null;

  @ApiProperty({ description: 'What was done, as resource.verb', example: 'server.create' })
  action!: string;

  @ApiProperty({ description: 'The kind of resource', example: 'server' })
  resourceType!: string;

  @NullableText('The resource id')
  resourceId!: string | null;

  @ApiProperty({ description: 'Outcome', example: 'ok' })
  outcome!: string;

  @JsonObject('What changed: names and labels, never credential values')
  detail!: Record<string, unknown>;
}

export class AuditPageDto extends PageOf(AuditEventDto, 'events', 'Events, newest first') {}
