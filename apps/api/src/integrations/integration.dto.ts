import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { IsOptionalNotNull, IsResourceName, IsStringRecord } from '../common/validators';
import { LIMITS, METADATA_KEY } from '../servers/server.limits';

export class CreateIntegrationDto {
  @ApiProperty({ description: "The Pipedream app's name slug", example: 'slack', maxLength: LIMITS.appSlug })
  @IsString()
  @MaxLength(LIMITS.appSlug)
  @Matches(/^[a-z0-9][a-z0-9_-]*$/i, { message: 'appSlug must be a Pipedream app slug (letters, digits, _ and -)' })
  appSlug!: string;

  @ApiPropertyOptional({ description: 'The connected Pipedream account to use (default: the one Pipedream picks for the app)', example: 'apn_abc123', maxLength: LIMITS.accountId })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(LIMITS.accountId)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'accountId must be a Pipedream account id (letters, digits, _ and -)' })
  accountId?: string;

  @ApiPropertyOptional({ description: 'Server name (default: pipedream-<appSlug>[-<accountId>]); unique among your servers', maxLength: LIMITS.name })
  @IsOptionalNotNull()
  @IsResourceName(LIMITS.name)
  name?: string;

  @ApiPropertyOptional({ description: 'Labels (string to string)', type: 'object', additionalProperties: { type: 'string' } })
  @IsOptionalNotNull()
  @IsStringRecord({ maxEntries: LIMITS.metadata, maxKeyLength: LIMITS.metadataKey, maxValueLength: LIMITS.metadataValue, keyPattern: METADATA_KEY, keyRule: 'a label key' })
  metadata?: Record<string, string>;
}
