import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PRINTABLE } from '../common/validators';

export class CreateTenantDto {
  @ApiProperty({ description: 'Unique tenant name (1 to 200 characters)', example: 'acme', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @Matches(PRINTABLE, { message: 'name must not contain control characters' })
  name!: string;
}

export class TenantDto {
  @ApiProperty({ description: 'Tenant id' })
  id!: string;

  @ApiProperty({ description: 'Tenant name' })
  name!: string;

  @ApiProperty({ description: 'When the tenant was created (ISO 8601)' })
  createdAt!: string;
}

export class TenantPageDto {
  @ApiProperty({ description: 'Tenants, oldest first', type: [TenantDto] })
  tenants!: TenantDto[];

  @ApiPropertyOptional({ description: 'Pass as pageToken for the next page; absent on the last page' })
  nextPageToken?: string;
}

export class CreateApiKeyDto {
  @ApiPropertyOptional({ description: 'A label to tell keys apart (at most 200 characters)', example: 'ci', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(PRINTABLE, { message: 'name must not contain control characters' })
  name?: string;
}

export class CreatedApiKeyDto {
  @ApiProperty({ description: 'Key id: what DELETE /api/v1/api-keys/{id} takes' })
  id!: string;

  @ApiProperty({ description: 'The key itself. Shown this once: only a hash is stored', example: 'mcpr_3q2...' })
  key!: string;

  @ApiProperty({ description: 'The tenant the key acts for' })
  tenantId!: string;

  @ApiProperty({ description: 'The label given at creation', nullable: true, type: String })
  name!: string | null;

  @ApiProperty({ description: 'When the key was made (ISO 8601)' })
  createdAt!: string;
}

export class ApiKeyDto {
  @ApiProperty({ description: 'Key id' })
  id!: string;

  @ApiProperty({ description: 'The tenant the key acts for' })
  tenantId!: string;

  @ApiProperty({ description: 'The label given at creation', nullable: true, type: String })
  name!: string | null;

  @ApiProperty({ description: 'The first characters of the key, to tell keys apart', example: 'mcpr_3q2abc' })
  prefix!: string;

  @ApiProperty({ description: 'When the key was made (ISO 8601)' })
  createdAt!: string;

  @ApiProperty({ description: 'When the key was revoked, if it was', nullable: true, type: String })
  revokedAt!: string | null;

  @ApiProperty({ description: 'Roughly when the key was last used (to the minute)', nullable: true, type: String })
  lastUsedAt!: string | null;
}

export class ApiKeyListDto {
  @ApiProperty({ description: "The tenant's keys, newest first", type: [ApiKeyDto] })
  apiKeys!: ApiKeyDto[];
}
