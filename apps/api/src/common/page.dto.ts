import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@app/database';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `pageSize` and `pageToken` of every paginated list, as query parameters. */
export class PageQueryDto {
  @ApiPropertyOptional({ description: `Items per page (1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE})`, minimum: 1, maximum: MAX_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  pageSize?: number;

  @ApiPropertyOptional({ description: 'The nextPageToken of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  pageToken?: string;
}
