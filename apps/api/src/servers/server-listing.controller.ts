import { Principal } from '@app/domain';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { EXAMPLE_IDS, PAGE_TOKEN_EXAMPLE, PROMPT_EXAMPLE, RESOURCE_EXAMPLE, RESOURCE_TEMPLATE_EXAMPLE } from '../common/api-examples';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { IdParam } from '../common/ids';
import { PageQueryDto } from '../common/page.dto';
import { PromptPageDto, ResourcePageDto, ResourceTemplatePageDto } from './server-listing.dto';
import { ServerListingService } from './server-listing.service';

const SERVER_ID = 'the server (the serverId of the RPC API)';
const UNTRUSTED = 'Each item is what the server sent, every field of it, cleaned of what cannot be stored and of the server\'s own secrets: untrusted text.';

@ApiTags('servers')
@ApiAuthenticated()
@Controller('api/v1/servers')
export class ServerListingController {
  constructor(private readonly listings: ServerListingService) {}

  @Get(':id/resources')
  @ApiEndpoint({
    summary: 'The resources as last discovered, one page at a time, in the order the server listed them',
    description: UNTRUSTED,
    ok: { type: ResourcePageDto, example: { serverId: EXAMPLE_IDS.server, resources: [RESOURCE_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } },
    problems: [400, 404],
  })
  resources(@CurrentPrincipal() principal: Principal, @IdParam('id', SERVER_ID) id: string, @Query() query: PageQueryDto): Promise<ResourcePageDto> {
    return this.listings.resources(principal, id, query);
  }

  @Get(':id/resource-templates')
  @ApiEndpoint({
    summary: 'The resource templates as last discovered, one page at a time, in the order the server listed them',
    description: UNTRUSTED,
    ok: { type: ResourceTemplatePageDto, example: { serverId: EXAMPLE_IDS.server, resourceTemplates: [RESOURCE_TEMPLATE_EXAMPLE] } },
    problems: [400, 404],
  })
  resourceTemplates(@CurrentPrincipal() principal: Principal, @IdParam('id', SERVER_ID) id: string, @Query() query: PageQueryDto): Promise<ResourceTemplatePageDto> {
    return this.listings.resourceTemplates(principal, id, query);
  }

  @Get(':id/prompts')
  @ApiEndpoint({
    summary: 'The prompts as last discovered, one page at a time, in the order the server listed them',
    description: UNTRUSTED,
    ok: { type: PromptPageDto, example: { serverId: EXAMPLE_IDS.server, prompts: [PROMPT_EXAMPLE] } },
    problems: [400, 404],
  })
  prompts(@CurrentPrincipal() principal: Principal, @IdParam('id', SERVER_ID) id: string, @Query() query: PageQueryDto): Promise<PromptPageDto> {
    return this.listings.prompts(principal, id, query);
  }
}
