import { SERVER_EVENT_TYPES, ServerEventType } from '@app/database';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsEntityId } from '../common/ids';
import { PageOf, PageQueryDto } from '../common/page.dto';
import { IsHttpUrl, IsOptionalNotNull, PRINTABLE } from '../common/validators';

export const MAX_WEBHOOK_SERVERS = 100;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

export class CreateWebhookDto {
  @ApiProperty({
    description: 'Where deliveries are POSTed: https (plain http only to a host the operator allowed in MCP_OUTBOUND_ALLOW); it must pass the outbound address policy',
    example: 'https://hooks.example.com/mcp-registry',
    maxLength: 2048,
  })
  @IsHttpUrl()
  url!: string;

  @ApiProperty({ description: 'The event types to deliver', enum: SERVER_EVENT_TYPES, isArray: true, example: ['server.status_changed', 'server.tools_changed'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(SERVER_EVENT_TYPES, { each: true, message: `each of events must be one of ${SERVER_EVENT_TYPES.join(', ')}` })
  events!: ServerEventType[];

  @ApiPropertyOptional({ description: 'What the webhook is for', maxLength: 500, example: 'Page the on-call engineer' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @Matches(PRINTABLE, { message: 'description must not contain control characters' })
  description?: string;

  @ApiPropertyOptional({
    description: `Only these servers' events (at most ${MAX_WEBHOOK_SERVERS}): a tenant's own servers, any server for the administrator. Absent or empty: every server the owner's events come from (a tenant's own; for the administrator, all)`,
    type: [String],
    format: 'uuid',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_WEBHOOK_SERVERS)
  @ArrayUnique()
  @IsEntityId({ each: true })
  serverIds?: string[];
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: 'New receiver URL (checked as at creation)', maxLength: 2048 })
  @IsOptionalNotNull()
  @IsHttpUrl()
  url?: string;

  @ApiPropertyOptional({ description: 'New event types', enum: SERVER_EVENT_TYPES, isArray: true })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(SERVER_EVENT_TYPES, { each: true, message: `each of events must be one of ${SERVER_EVENT_TYPES.join(', ')}` })
  events?: ServerEventType[];

  @ApiPropertyOptional({ description: 'New description; null removes it', maxLength: 500, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  @Matches(PRINTABLE, { message: 'description must not contain control characters' })
  description?: string | null;

  @ApiPropertyOptional({ description: 'New server filter; empty: every server', type: [String], format: 'uuid' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_WEBHOOK_SERVERS)
  @ArrayUnique()
  @IsEntityId({ each: true })
  serverIds?: string[];

  @ApiPropertyOptional({ description: 'false stops deliveries; true starts them again (a webhook disabled for failing is re-enabled with its failures forgotten)' })
  @IsOptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: "The owner: a tenant, or null for the administrator's" }) tenantId!: string | null;
  @ApiProperty() url!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ enum: SERVER_EVENT_TYPES, isArray: true }) events!: ServerEventType[];
  @ApiProperty({ type: [String], description: 'Only these servers; empty: every server the owner hears of' }) serverIds!: string[];
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Why it is disabled (by its owner, or after failing too long)' }) disabledReason!: string | null;
  @ApiProperty({ type: String, nullable: true }) disabledAt!: string | null;
  @ApiProperty({ description: 'Failed delivery attempts in a row since the last success' }) consecutiveFailures!: number;
  @ApiProperty({ type: String, nullable: true, description: 'When the current run of failures began' }) failingSince!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastSuccessAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastFailureAt!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({
    description: 'The signing secret (Standard Webhooks: whsec_ then base64). Shown this once: it is stored encrypted and never returned again',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2kY1o+SxZqE=',
  })
  secret!: string;
}

export class WebhookSecretDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'The new signing secret, shown this once; deliveries are signed with it from now on', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2kY1o+SxZqE=' })
  secret!: string;
}

export class WebhookPageDto extends PageOf(WebhookDto, 'webhooks') {}

export class DeliveryAttemptDto {
  @ApiProperty({ description: '1 for the first try' }) attempt!: number;
  @ApiProperty() at!: string;
  @ApiProperty({ type: Number, nullable: true }) durationMs!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "The receiver's HTTP status; null when there was no answer" }) statusCode!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed (null: delivered)' }) error!: string | null;
}

export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The event id: the webhook-id header of every attempt' }) eventId!: string;
  @ApiProperty({ enum: SERVER_EVENT_TYPES }) type!: string;
  @ApiProperty({ format: 'uuid' }) serverId!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, description: 'pending (an attempt is due), delivered (a 2xx answer), failed (the last attempt failed), cancelled (the webhook was disabled)' })
  status!: string;
  @ApiProperty({ description: 'Attempts made' }) attemptCount!: number;
  @ApiProperty({ type: String, nullable: true, description: 'When the next attempt is due (pending only)' }) nextAttemptAt!: string | null;
  @ApiProperty({ type: Number, nullable: true }) lastStatusCode!: number | null;
  @ApiProperty({ type: String, nullable: true }) lastError!: string | null;
  @ApiProperty({ type: String, nullable: true }) deliveredAt!: string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty({ type: [DeliveryAttemptDto] }) attempts!: DeliveryAttemptDto[];
}

export class WebhookDeliveryPageDto extends PageOf(WebhookDeliveryDto, 'deliveries') {}

export class DeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this state' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: (typeof DELIVERY_STATUSES)[number];
}
