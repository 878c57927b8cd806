import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { PageOf } from '../common/page.dto';
import { ServerScopedDto } from './server.dto';

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

/** An item as the server sent it: documented by its DTO, typed as what it is. */
type ServerSentItem = Record<string, unknown>;

export class ResourcePageDto extends IntersectionType(ServerScopedDto, PageOf<'resources', ResourceDto, ServerSentItem>(ResourceDto, 'resources', 'Resources, in the order the server listed them')) {}

export class ResourceTemplatePageDto extends IntersectionType(ServerScopedDto, PageOf<'resourceTemplates', ResourceTemplateDto, ServerSentItem>(ResourceTemplateDto, 'resourceTemplates', 'Resource templates, in the order the server listed them')) {}

export class PromptPageDto extends IntersectionType(ServerScopedDto, PageOf<'prompts', PromptDto, ServerSentItem>(PromptDto, 'prompts', 'Prompts, in the order the server listed them')) {}
