import { Principal } from '@app/domain';
import { Body, Controller, Delete, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiJsonBody } from '../common/api-examples';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
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
  @ApiEndpoint({
    summary: "Subscribe a URL to server events: a tenant's webhook gets its own servers' events, the administrator's every server's",
    description:
      'Events: server.status_changed, server.tools_changed, server.tool_change_pending, server.authorization_required. Deliveries follow ' +
      'the Standard Webhooks specification (webhook-id, webhook-timestamp, webhook-signature: v1 HMAC-SHA256 over id.timestamp.body) and ' +
      'are retried with a doubling delay. The URL must pass the outbound address policy. The answer carries the signing secret this once.',
    created: { type: CreatedWebhookDto, example: CREATED_WEBHOOK_EXAMPLE },
    problems: [400, 409],
  })
  @ApiJsonBody(CreateWebhookDto, CREATE_WEBHOOK_EXAMPLES)
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.webhooks.create(principal, body);
  }

  @Get()
  @ApiEndpoint({
    summary: "The caller's webhooks (the administrator: every webhook), oldest first, without their secrets",
    ok: { type: WebhookPageDto, example: { webhooks: [WEBHOOK_EXAMPLE] } },
    problems: [400],
  })
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto): Promise<WebhookPageDto> {
    return this.webhooks.list(principal, query);
  }

  @Get(':id')
  @ApiEndpoint({
    summary: 'One webhook: its events, whether it is enabled (and why not), its run of failures',
    ok: { type: WebhookDto, example: DISABLED_WEBHOOK_EXAMPLE },
    problems: [404],
  })
  get(@CurrentPrincipal() principal: Principal, @WebhookId() id: string): Promise<WebhookDto> {
    return this.webhooks.get(principal, id);
  }

  @Patch(':id')
  @ApiEndpoint({
    summary: 'Change the URL, events, server filter or description; enable or disable (enabling one disabled for failing forgets its failures)',
    ok: { type: WebhookDto, example: WEBHOOK_EXAMPLE },
    problems: [400, 404],
  })
  @ApiJsonBody(UpdateWebhookDto, UPDATE_WEBHOOK_EXAMPLES)
  update(@CurrentPrincipal() principal: Principal, @WebhookId() id: string, @Body() body: UpdateWebhookDto): Promise<WebhookDto> {
    return this.webhooks.update(principal, id, body);
  }

  @Delete(':id')
  @ApiEndpoint({ summary: 'Delete a webhook and its deliveries', noContent: 'Deleted', problems: [404] })
  delete(@CurrentPrincipal() principal: Principal, @WebhookId() id: string): Promise<void> {
    return this.webhooks.delete(principal, id);
  }

  @Post(':id/rotate-secret')
  @ApiEndpoint({
    summary: 'A new signing secret, shown this once; deliveries are signed with it from now on',
    created: { type: WebhookSecretDto, example: SECRET_EXAMPLE },
    problems: [404],
  })
  rotateSecret(@CurrentPrincipal() principal: Principal, @WebhookId() id: string): Promise<WebhookSecretDto> {
    return this.webhooks.rotateSecret(principal, id);
  }

  @Get(':id/deliveries')
  @ApiEndpoint({
    summary: "A webhook's deliveries, newest first: status, attempts with the receiver's status codes or why there was none, the next attempt",
    ok: { type: WebhookDeliveryPageDto, example: DELIVERY_PAGE_EXAMPLE },
    problems: [400, 404],
  })
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @WebhookId() id: string,
    @Query() query: DeliveriesQueryDto,
  ): Promise<WebhookDeliveryPageDto> {
    return this.webhooks.listDeliveries(principal, id, query);
  }
}
