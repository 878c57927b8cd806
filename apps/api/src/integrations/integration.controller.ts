import { Principal } from '@app/domain';
import { Body, Controller, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { ServerDto } from '../servers/server.dto';
import { CreateIntegrationDto } from './integration.dto';
import { IntegrationService } from './integration.service';
import { ApiJsonBody, NEW_SERVER_EXAMPLE } from '../common/api-examples';

@ApiTags('integrations')
@ApiAuthenticated()
@Controller('api/v1/integrations')
export class IntegrationController {
  constructor(private readonly integrations: IntegrationService) {}

  @Post()
  @ApiEndpoint({
    summary: 'Connect a Pipedream Connect app account (tenant keys): makes an INTEGRATION server and queues its discovery',
    description: 'Answers 422 when the platform has no Pipedream Connect configuration.',
    created: {
      type: ServerDto,
      example: {
        ...NEW_SERVER_EXAMPLE,
        name: 'pipedream-slack',
        kind: 'MCP_SERVER_KIND_INTEGRATION',
        url: 'https://remote.mcp.pipedream.net',
        headers: {},
        hasCredentials: false,
        metadata: {},
        appSlug: 'slack',
        accountId: null,
      },
    },
    problems: [400, 403, 409, 422],
  })
  @ApiJsonBody(CreateIntegrationDto, { slack: { summary: 'Connect the Slack account Pipedream picks', value: { appSlug: 'slack' } } })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateIntegrationDto): Promise<ServerDto> {
    return this.integrations.create(principal, body);
  }
}
