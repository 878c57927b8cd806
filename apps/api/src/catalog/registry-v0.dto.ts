import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class V0ListQueryDto {
  @ApiPropertyOptional({ description: 'The metadata.nextCursor of the previous page, passed back as is' })
  @IsOptional()
  @IsString()
  @MaxLength(600)
  cursor?: string;

  @ApiPropertyOptional({ description: 'Servers per page (1 to 100, default 30)', minimum: 1, maximum: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'A substring of the server name' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ description: 'Only servers changed after this RFC 3339 time (deleted ones included)', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  updated_since?: string;

  @ApiPropertyOptional({ description: '`latest`, or an exact version', example: 'latest' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  version?: string;

  @ApiPropertyOptional({ description: 'Include deleted entries (always with updated_since)', enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'])
  include_deleted?: string;
}

export class V0VersionQueryDto {
  @ApiPropertyOptional({ description: 'Include deleted entries', enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'])
  include_deleted?: string;
}
