import { DEFAULT_PAGE_SIZE, Page, ServerListingRepository } from '@app/database';
import { ListedItem, ListingKind, Principal } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { PageQueryDto } from '../common/page.dto';
import { PromptPageDto, ResourcePageDto, ResourceTemplatePageDto } from './server-listing.dto';
import { ServerService } from './server.service';

const definitions = (page: Page<ListedItem>) => page.items.map((i) => i.definition);
const next = (page: Page<ListedItem>) => (page.nextPageToken ? { nextPageToken: page.nextPageToken } : {});

/** A server's resources, resource templates and prompts as last discovered, to whoever may see the server. */
@Injectable()
export class ServerListingService {
  constructor(
    private readonly servers: ServerService,
    private readonly listings: ServerListingRepository,
  ) {}

  async resources(principal: Principal, id: string, query: PageQueryDto): Promise<ResourcePageDto> {
    const { serverId, page } = await this.page(principal, id, 'resource', query);
    return { serverId, resources: definitions(page), ...next(page) };
  }

  async resourceTemplates(principal: Principal, id: string, query: PageQueryDto): Promise<ResourceTemplatePageDto> {
    const { serverId, page } = await this.page(principal, id, 'resource_template', query);
    return { serverId, resourceTemplates: definitions(page), ...next(page) };
  }

  async prompts(principal: Principal, id: string, query: PageQueryDto): Promise<PromptPageDto> {
    const { serverId, page } = await this.page(principal, id, 'prompt', query);
    return { serverId, prompts: definitions(page), ...next(page) };
  }

  private async page(principal: Principal, id: string, kind: ListingKind, query: PageQueryDto) {
    const server = await this.servers.findVisible(principal, id);
    const page = await this.listings.page(server.id, kind, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { serverId: server.id, page };
  }
}
