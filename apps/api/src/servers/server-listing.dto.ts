import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * A server's resources, resource templates and prompts as last discovered, one page at a time. Each item is the
 * object the server sent (every field it sent, cleaned of what cannot be stored and of the server's own
 * secrets): untrusted text, shown as text.
 */
/** What a resource and a resource template both may say of themselves. */
class ResourceFieldsDto {
  @ApiPropertyOptional({ description: 'Its name, as the server gave it' })
  name?: string;

  @ApiPropertyOptional({ description: 'Display title' })
  title?: string;

  @ApiPropertyOptional({ description: 'What it holds' })
  description?: string;

  @ApiPropertyOptional({ description: 'MIME type of its contents' })
  mimeType?: string;
}

export class ResourceDto extends ResourceFieldsDto {
  @ApiProperty({ description: "The resource's URI (what resources/read takes)" })
  uri!: string;
}

export class ResourceTemplateDto extends ResourceFieldsDto {
  @ApiProperty({ description: 'RFC 6570 URI template of the resources it describes' })
  uriTemplate!: string;
}

export class PromptArgumentDto {
  @ApiProperty({ description: 'Argument name' })
  name!: string;

  @ApiPropertyOptional({ description: 'What it is for' })
  description?: string;

  @ApiPropertyOptional({ description: 'Whether prompts/get needs it' })
  required?: boolean;
}

export class PromptDto {
  @ApiProperty({ description: 'Prompt name (what prompts/get takes)' })
  name!: string;

  @ApiPropertyOptional({ description: 'Display title' })
  title?: string;

  @ApiPropertyOptional({ description: 'What the prompt does' })
  description?: string;

  @ApiPropertyOptional({ description: 'Its arguments', type: [PromptArgumentDto] })
  arguments?: PromptArgumentDto[];
}

export class ResourcePageDto {
  @ApiProperty({ description: 'The server' })
  serverId!: string;

  @ApiProperty({ description: 'Resources, in the order the server listed them', type: [ResourceDto] })
  resources!: Record<string, unknown>[];

  @ApiPropertyOptional({ description: 'Pass as pageToken for the next page; absent on the last page' })
  nextPageToken?: string;
}

export class ResourceTemplatePageDto {
  @ApiProperty({ description: 'The server' })
  serverId!: string;

  @ApiProperty({ description: 'Resource templates, in the order the server listed them', type: [ResourceTemplateDto] })
  resourceTemplates!: Record<string, unknown>[];

  @ApiPropertyOptional({ description: 'Pass as pageToken for the next page; absent on the last page' })
  nextPageToken?: string;
}

export class PromptPageDto {
  @ApiProperty({ description: 'The server' })
  serverId!: string;

  @ApiProperty({ description: 'Prompts, in the order the server listed them', type: [PromptDto] })
  prompts!: Record<string, unknown>[];

  @ApiPropertyOptional({ description: 'Pass as pageToken for the next page; absent on the last page' })
  nextPageToken?: string;
}
