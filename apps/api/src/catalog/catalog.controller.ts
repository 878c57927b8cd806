import { Principal } from '@app/domain';
import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { PAGE_TOKEN_EXAMPLE } from '../common/api-examples';
import { CatalogPageDto, ImportResultDto, ListCatalogQueryDto } from './catalog.dto';
import { CATALOG_ENTRY_EXAMPLE, CLAUDE_DESKTOP_CONFIG, IMPORT_RESULT_EXAMPLE, PUBLISHED_SERVER_JSON, REMOTE_SERVER_JSON } from './catalog.examples';
import { CatalogService } from './catalog.service';

@ApiTags('catalog')
@ApiAuthenticated()
@Controller('api/v1/catalog')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  @ApiEndpoint({
    summary: "The catalog: published server descriptions (server.json) the caller may instantiate: the platform's and, for a tenant, its own",
    description: 'Deleted entries are left out unless `status=deleted` is asked for. The admin sees every tenant\'s entries too.',
    ok: { type: CatalogPageDto, example: { entries: [CATALOG_ENTRY_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } },
    problems: [400],
  })
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListCatalogQueryDto): Promise<CatalogPageDto> {
    return this.catalog.list(principal, query);
  }

  @Post('import')
  @ApiEndpoint({
    summary: "Import servers into the catalog (the admin into the platform's, a tenant into its own), all or nothing",
    description:
      'The body is one server.json (schema 2025-12-11), a list of them, a Registry API list page (`{servers: [{server, _meta}]}`, as ' +
      'GET /v0.1/servers and GET /api/v1/catalog/export answer), or a client config: `mcpServers` of Claude Desktop and Cursor, ' +
      '`servers` of VS Code (stdio `command`/`args`/`env`, remote `url`/`type`/`headers`; a `url` without `type` is streamable HTTP ' +
      'unless its path ends in /sse). Client-config entries are named `local.mcp-config/<key>`; values that look secret are not kept ' +
      '(listed in `withheld`). One refused item refuses the request: the 400 names every wrong field of every item.',
    ok: { type: ImportResultDto, example: IMPORT_RESULT_EXAMPLE },
    problems: [400, 413],
  })
  @ApiBody({
    schema: { oneOf: [{ type: 'object' }, { type: 'array', items: { type: 'object' } }] },
    examples: {
      published: { summary: 'One published server.json', value: PUBLISHED_SERVER_JSON },
      list: { summary: 'A list of server.json', value: [PUBLISHED_SERVER_JSON, REMOTE_SERVER_JSON] },
      registry: { summary: 'A Registry API list page', value: { servers: [{ server: REMOTE_SERVER_JSON, _meta: {} }], metadata: { count: 1 } } },
      claude: { summary: "A Claude Desktop config's mcpServers", value: CLAUDE_DESKTOP_CONFIG },
    },
  })
  import(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<ImportResultDto> {
    return this.catalog.import(principal, body);
  }

  @Get('export')
  @ApiEndpoint({
    summary: "The caller's whole catalog (the admin: the platform's) as one Registry API list page, which import takes back unchanged",
    ok: {
      description: 'A Registry API ServerList with every entry and its status under the official `_meta`',
      example: { servers: [{ server: PUBLISHED_SERVER_JSON, _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } } }], metadata: { count: 1 } },
    },
  })
  export(@CurrentPrincipal() principal: Principal): Promise<unknown> {
    return this.catalog.export(principal);
  }
}
