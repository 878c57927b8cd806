import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '@app/database';
import { Type as Class } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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

/** What every page of a list answers: its items under the list's own name, and where the next page starts. */
export type Page<Field extends string, Item> = { [K in Field]: Item[] } & { nextPageToken?: string };

/**
 * The base of a list's page DTO: `field` holds the items (documented as an array of `item`, with `description`
 * when given), then `nextPageToken`, the same on every page. The DTO that extends it keeps its own schema name:
 * `export class TenantPageDto extends PageOf(TenantDto, 'tenants', 'Tenants, oldest first') {}`. `Item`, the
 * items' TypeScript type, is the documented class's unless said (a server's own objects, documented by a class).
 */
export function PageOf<Field extends string, Documented, Item = Documented>(item: Class<Documented>, field: Field, description?: string): Class<Page<Field, Item>> {
  class PageDto {}
  ApiProperty({ ...(description === undefined ? {} : { description }), type: [item] })(PageDto.prototype, field);
  // Applied by hand, so with no design type to read: the type is said.
  ApiPropertyOptional({ description: 'Pass as pageToken for the next page; absent on the last page', type: String })(PageDto.prototype, 'nextPageToken');
  return PageDto as Class<Page<Field, Item>>;
}
