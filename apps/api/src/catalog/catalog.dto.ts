import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageOf, PageQueryDto } from '../common/page.dto';
import { JsonObject, NullableText } from '../common/api-fields';

const STATUSES = ['active', 'deprecated', 'deleted'] as const;

export class ListCatalogQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Words in the name, title or description' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ description: 'Only entries of this status (default: active and deprecated)', enum: STATUSES })
  @IsOptional()
  @IsIn(STATUSES)
  status?: (typeof STATUSES)[number];
}

export class CatalogEntryDto {
  @ApiProperty({ description: 'The entry id' })
  id!: string;

  @ApiProperty({ description: 'The server name, reverse-DNS namespace and a name (io.github.owner/server)' })
  name!: string;

  @ApiProperty({ description: 'The published version' })
  version!: string;

  @NullableText('The server.json title')
  title!: string | null;

  @ApiProperty({ description: 'The server.json description' })
  description!: string;

  @ApiProperty({ description: 'Whether this is the newest version of the name' })
  isLatest!: boolean;

  @ApiProperty({ description: 'active, deprecated or deleted (a deleted entry is listed only when asked for)', enum: STATUSES })
  status!: string;

  @NullableText('Why the status was set, when the publisher said')
  statusMessage!: string | null;

  @NullableText("The owning tenant; null for the platform's catalog")
  tenantId!: string | null;

  @NullableText('The catalog source the entry was synced from; null when imported')
  sourceId!: string | null;

  @ApiProperty({ description: 'When the entry was first published here' })
  publishedAt!: string;

  @ApiProperty({ description: 'When the entry last changed' })
  updatedAt!: string;

  @JsonObject('The server.json as given (schema 2025-12-11)')
  server!: Record<string, unknown>;
}

export class CatalogPageDto extends PageOf(CatalogEntryDto, 'entries') {}

export class ImportItemResultDto {
  @ApiProperty({ description: 'Where the item is in the request (`(root)`, `3`, `servers.2.server`, `mcpServers.github`)' })
  at!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty()
  version!: string;

  @ApiProperty({ enum: ['added', 'updated', 'unchanged'] })
  outcome!: 'added' | 'updated' | 'unchanged';

  @ApiProperty({
    description: 'Client-config values left out of the catalog because they look secret (env API keys, Authorization headers): they become secret inputs to give when the entry is instantiated',
    type: [String],
  })
  withheld!: string[];
}

export class ImportResultDto {
  @ApiProperty({ enum: ['server.json', 'server.json list', 'registry list', 'client config'] })
  format!: string;

  @ApiProperty()
  added!: number;

  @ApiProperty()
  updated!: number;

  @ApiProperty()
  unchanged!: number;

  @ApiProperty({ type: [ImportItemResultDto] })
  items!: ImportItemResultDto[];
}
