import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { IsResourceName, PRINTABLE } from '../common/validators';
import { PageOf } from '../common/page.dto';
import { NullableText } from '../common/api-fields';

export class CreateTenantDto {
  @ApiProperty({ description: 'Unique tenant name (1 to 200 characters)', example: 'acme', maxLength: 200 })
  @IsResourceName(200)
  name!: string;
}

/** The limits that apply to a tenant: its own where the admin set one, else the platform default. */
export class TenantLimitsDto {
  @ApiProperty({ description: 'Servers the tenant may own (CUSTOM and INTEGRATION). Default TENANT_MAX_SERVERS', example: 200 })
  maxServers!: number;

  @ApiProperty({ description: "Tools stored across the tenant's servers; a discovery that would pass it ends in ERROR. Default TENANT_MAX_TOOLS", example: 5000 })
  maxTools!: number;

  @ApiProperty({ description: "The tenant's tool calls running at once, per API replica (429 past it). Default TENANT_MAX_CALLS_IN_FLIGHT", example: 20 })
  maxCallsInFlight!: number;

  @ApiProperty({ description: "Bytes one tool call's answer may bring in (502 past it). Default TOOL_RESULT_MAX_BYTES", example: 4194304 })
  toolResultMaxBytes!: number;

  @ApiProperty({
    description: "Bytes of answers the tenant's calls in flight may hold together, per API replica (429 past it). Default TENANT_MAX_RESULT_BYTES_IN_FLIGHT",
    example: 33554432,
  })
  maxResultBytesInFlight!: number;
}

/** A change of a tenant's own limits: a number sets one, null returns it to the platform default, absent leaves it. */
export class TenantLimitsChangeDto {
  @ApiPropertyOptional({ description: 'Servers the tenant may own (0 to 1,000,000; null: TENANT_MAX_SERVERS)', example: 500, nullable: true, type: Number })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  maxServers?: number | null;

  @ApiPropertyOptional({ description: "Tools across the tenant's servers (0 to 10,000,000; null: TENANT_MAX_TOOLS)", example: 20000, nullable: true, type: Number })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000_000)
  maxTools?: number | null;

  @ApiPropertyOptional({ description: 'Tool calls at once per API replica (1 to 100,000; null: TENANT_MAX_CALLS_IN_FLIGHT)', example: 50, nullable: true, type: Number })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100_000)
  maxCallsInFlight?: number | null;

  @ApiPropertyOptional({ description: "Bytes of one call's answer (1,024 to 1 GiB; null: TOOL_RESULT_MAX_BYTES)", example: 8388608, nullable: true, type: Number })
  @IsOptional()
  @IsInt()
  @Min(1024)
  @Max(1_073_741_824)
  toolResultMaxBytes?: number | null;

  @ApiPropertyOptional({
    description: 'Bytes of answers held by calls in flight, per API replica (1,024 to 16 GiB; null: TENANT_MAX_RESULT_BYTES_IN_FLIGHT)',
    example: 67108864,
    nullable: true,
    type: Number,
  })
  @IsOptional()
  @IsInt()
  @Min(1024)
  @Max(17_179_869_184)
  maxResultBytesInFlight?: number | null;
}

export class UpdateTenantDto {
  @ApiPropertyOptional({
    description: "The tenant's own limits to change: a number sets one, null returns it to the platform default",
    type: TenantLimitsChangeDto,
    example: { maxServers: 500, maxCallsInFlight: null },
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TenantLimitsChangeDto)
  limits?: TenantLimitsChangeDto;
}

export class TenantDto {
  @ApiProperty({ description: 'Tenant id' })
  id!: string;

  @ApiProperty({ description: 'Tenant name' })
  name!: string;

  @ApiProperty({ description: 'When the tenant was created (ISO 8601)' })
  createdAt!: string;

  @ApiProperty({ description: 'The limits that apply to the tenant: its own where set, else the platform defaults', type: TenantLimitsDto })
  limits!: TenantLimitsDto;

  @ApiProperty({
    description: 'The limits set for this tenant by the administrator (the others are the platform defaults)',
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { maxServers: 500 },
  })
  customLimits!: Record<string, number>;
}

export class TenantPageDto extends PageOf(TenantDto, 'tenants', 'Tenants, oldest first') {}

export class CreateApiKeyDto {
  @ApiPropertyOptional({ description: 'A label to tell keys apart (at most 200 characters)', example: 'ci', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(PRINTABLE, { message: 'name must not contain control characters' })
  name?: string;
}

export class ApiKeyDto {
  @ApiProperty({ description: 'Key id' })
  id!: string;

  @ApiProperty({ description: 'The tenant the key acts for' })
  tenantId!: string;

  @NullableText('The label given at creation')
  name!: string | null;

  @ApiProperty({ description: 'The first characters of the key, to tell keys apart', example: 'mcpr_3q2abc' })
  prefix!: string;

  @ApiProperty({ description: 'When the key was made (ISO 8601)' })
  createdAt!: string;

  @NullableText('When the key was revoked, if it was')
  revokedAt!: string | null;

  @NullableText('Roughly when the key was last used (to the minute)')
  lastUsedAt!: string | null;
}

/** A key as made: the key itself (this once) beside what ApiKeyDto says of it. */
export class CreatedApiKeyDto extends PickType(ApiKeyDto, ['tenantId', 'name', 'createdAt'] as const) {
  @ApiProperty({ description: 'Key id: what DELETE /api/v1/api-keys/{id} takes' })
  id!: string;

  @ApiProperty({ description: 'The key itself. Shown this once: only a hash is stored', example: 'mcpr_3q2...' })
  key!: string;
}

export class ApiKeyListDto {
  @ApiProperty({ description: "The tenant's keys, newest first", type: [ApiKeyDto] })
  apiKeys!: ApiKeyDto[];
}
