import { Principal } from '@app/domain';
import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiJsonBody } from '../common/api-examples';
import { ApiAuthenticated, ApiProblems } from '../common/api-problems.decorator';
import { IdParam } from '../common/ids';
import { PageQueryDto } from '../common/page.dto';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  DeliveriesQueryDto,
  UpdateWebhookDto,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookPageDto,
  WebhookSecretDto,
} from './webhook.dto';
import {
  CREATE_WEBHOOK_EXAMPLES,
  CREATED_WEBHOOK_EXAMPLE,
  DELIVERY_PAGE_EXAMPLE,
  DISABLED_WEBHOOK_EXAMPLE,
  SECRET_EXAMPLE,
  UPDATE_WEBHOOK_EXAMPLES,
  WEBHOOK_EXAMPLE,
  WEBHOOK_ID_EXAMPLE,
} from './webhook.examples';
import { WebhookService } from './webhook.service';

/** The `id` path parameter: a webhook's id. */
const WebhookId = (): ParameterDecorator => IdParam('id', 'the webhook', WEBHOOK_ID_EXAMPLE);

@ApiTags('webhooks')
@ApiAuthenticated()
@Controller('api/v1/webhooks')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Post()
  @ApiOperation({
    summary: "Subscribe a URL to server events: a tenant's webhook gets its own servers' events, the administrator's every server's",
    description:
      'Events: server.status_changed, server.tools_changed, server.tool_change_pending, server.authorization_required. Deliveries follow ' +
      'the Standard Webhooks specification (webhook-id, webhook-timestamp, webhook-signature: v1 HMAC-SHA256 over id.timestamp.body) and ' +
      'are retried with a doubling delay. The URL must pass the outbound address policy. The answer carries the signing secret this once.',
  })
  @ApiJsonBody(CreateWebhookDto, CREATE_WEBHOOK_EXAMPLES)
  @ApiCreatedResponse({ type: CreatedWebhookDto, example: CREATED_WEBHOOK_EXAMPLE })
  @ApiProblems(400, 409)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.webhooks.create(principal, body);
  }

  @Get()
  @ApiOperation({ summary: "The caller's webhooks (the administrator: every webhook), oldest first, without their secrets" })
  @ApiOkResponse({ type: WebhookPageDto, example: { webhooks: [WEBHOOK_EXAMPLE] } })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<WebhookPageDto> {
    return this.webhooks.list(principal, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webhook: its events, whether it is enabled (and why not), its run of failures' })
  @ApiOkResponse({ type: WebhookDto, example: DISABLED_WEBHOOK_EXAMPLE })
  @ApiProblems(404)
  get(@CurrentPrincipal() principal: Principal, @WebhookId() id: string): Promise<WebhookDto> {
    return this.webhooks.get(principal, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the URL, events, server filter or description; enable or disable (enabling one disabled for failing forgets its failures)' })
  @ApiJsonBody(UpdateWebhookDto, UPDATE_WEBHOOK_EXAMPLES)
  @ApiOkResponse({ type: WebhookDto, example: WEBHOOK_EXAMPLE })
  @ApiProblems(400, 404)
  update(@CurrentPrincipal() principal: Principal, @WebhookId() id: string, @Body() body: UpdateWebhookDto): Promise<WebhookDto> {
    return this.webhooks.update(principal, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook and its deliveries' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(404)
  delete(@CurrentPrincipal() principal: Principal, @WebhookId() id: string): Promise<void> {
    return this.webhooks.delete(principal, id);
  }

  @Post(':id/rotate-secret')
  @ApiOperation({ summary: 'A new signing secret, shown this once; deliveries are signed with it from now on' })
  @ApiCreatedResponse({ type: WebhookSecretDto, example: SECRET_EXAMPLE })
  @ApiProblems(404)
  rotateSecret(@CurrentPrincipal() principal: Principal, @WebhookId() id: string): Promise<WebhookSecretDto> {
    return this.webhooks.rotateSecret(principal, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "A webhook's deliveries, newest first: status, attempts with the receiver's status codes or why there was none, the next attempt" })
  @ApiOkResponse({ type: WebhookDeliveryPageDto, example: DELIVERY_PAGE_EXAMPLE })
  @ApiProblems(400, 404)
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @WebhookId() id: string,
    @Query() query: DeliveriesQueryDto,
  ): Promise<WebhookDeliveryPageDto> {
    return this.webhooks.listDeliveries(principal, id, query);
  }
}
