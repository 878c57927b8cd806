import { Principal } from '@app/domain';
import { Controller, Get, Query, Type } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { EXAMPLE_IDS, PAGE_TOKEN_EXAMPLE, PROMPT_EXAMPLE, RESOURCE_EXAMPLE, RESOURCE_TEMPLATE_EXAMPLE } from '../common/api-examples';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { ServerIdParam } from '../common/ids';
import { PageQueryDto } from '../common/page.dto';
import { PromptPageDto, ResourcePageDto, ResourceTemplatePageDto } from './server-listing.dto';
import { ServerListingService } from './server-listing.service';

const UNTRUSTED = 'Each item is what the server sent, every field of it, cleaned of what cannot be stored and of the server\'s own secrets: untrusted text.';

/** A page of one of the server's lists besides tools (`what`), as last discovered; the example shows the page's items. */
const ListingEndpoint = (what: string, type: Type, items: object): MethodDecorator =>
  ApiEndpoint({
    summary: `The ${what} as last discovered, one page at a time, in the order the server listed them`,
    description: UNTRUSTED,
    ok: { type, example: { serverId: EXAMPLE_IDS.server, ...items } },
    problems: [400, 404],
  });

@ApiTags('servers')
@ApiAuthenticated()
@Controller('api/v1/servers')
export class ServerListingController {
  constructor(private readonly listings: ServerListingService) {}

  @Get(':id/resources')
  @ListingEndpoint('resources', ResourcePageDto, { resources: [RESOURCE_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE })
  resources(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string, @Query() query: PageQueryDto): Promise<ResourcePageDto> {
    return this.listings.resources(principal, id, query);
  }

  @Get(':id/resource-templates')
  @ListingEndpoint('resource templates', ResourceTemplatePageDto, { resourceTemplates: [RESOURCE_TEMPLATE_EXAMPLE] })
  resourceTemplates(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string, @Query() query: PageQueryDto): Promise<ResourceTemplatePageDto> {
    return this.listings.resourceTemplates(principal, id, query);
  }

  @Get(':id/prompts')
  @ListingEndpoint('prompts', PromptPageDto, { prompts: [PROMPT_EXAMPLE] })
  prompts(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string, @Query() query: PageQueryDto): Promise<PromptPageDto> {
    return this.listings.prompts(principal, id, query);
  }
}
