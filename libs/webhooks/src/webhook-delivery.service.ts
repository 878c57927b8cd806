import { APP_CONFIG, AppConfig } from '@app/config';
import { CredentialsCipher } from '@app/credentials';
import { WebhookDeliveryRepository } from '@app/database';
import { OutboundPolicy, redactor } from '@app/mcp';
import { WebhookProducer } from '@app/queue';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { webhookPayload } from './webhook-payload';
import { openWebhookSecret, WEBHOOK_SECRET_PREFIX } from './webhook-secret';
import { WebhookSender } from './webhook-sender';

/** A claim outlives the attempt's time limit by this much before another worker may take the delivery over. */
export const LEASE_MARGIN_MS = 5000;
export const WEBHOOK_USER_AGENT = 'mcp-registry-webhooks/1';

export type AttemptReport =
  | { kind: 'delivered' | 'retrying' | 'failed' | 'cancelled' | 'none'; attempt?: number; nextAttemptAt?: Date | null }
  /** Another worker holds the delivery until then (a stopped worker's lease runs out then). */
  | { kind: 'busy'; until: Date };

/**
 * One attempt of one delivery: claimed under a lease, signed with the webhook's secret (Standard Webhooks:
 * `webhook-id` the event's id, the same on every attempt; `webhook-timestamp` the attempt's time;
 * `webhook-signature` v1 HMAC-SHA256 over id.timestamp.body), sent through the outbound address policy, recorded,
 * and the next attempt queued after a doubling delay until the last. The secret is opened only here, only for
 * signing, and never logged or queued.
 */
@Injectable()
export class WebhookDeliveryService implements OnModuleDestroy {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly sender: WebhookSender;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly producer: WebhookProducer,
    private readonly cipher: CredentialsCipher,
    policy: OutboundPolicy,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.sender = new WebhookSender(policy, config.webhooks.timeoutMs);
  }

  async attempt(deliveryId: string): Promise<AttemptReport> {
    const settings = this.config.webhooks;
    const claim = await this.deliveries.claim(deliveryId, settings.timeoutMs + LEASE_MARGIN_MS, settings.attempts);
    if (claim.status === 'busy') return { kind: 'busy', until: claim.until };
    if (claim.status !== 'claimed') return { kind: claim.status };
    const d = claim.delivery;
    const attempt = d.attemptsBefore + 1;
    const secret = openWebhookSecret(this.cipher, d.webhookId, d.secretCipher);
    const body = webhookPayload({ type: d.type, at: d.at, data: d.data });
    const now = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': d.eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(d.eventId, now, body),
    };
    // The receiver's answer is quoted in errors: the secret is taken out in every form it could echo it (the
    // bare key too, which is what Standard Webhooks libraries sign with), as discovery does for servers' secrets.
    const redact = redactor([secret, secret.slice(WEBHOOK_SECRET_PREFIX.length)]);
    const result = await this.sender.send(d.url, headers, body, redact);
    const last = result.ok || result.permanent || attempt >= settings.attempts;
    const nextAttemptAt = last ? null : new Date(Date.now() + this.producer.retryDelayMs(attempt));
    const { disabledReason } = await this.deliveries.record(d.id, {
      attempt,
      ok: result.ok,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      nextAttemptAt,
      disableAfterFailures: settings.disableAfterFailures,
      disableAfterSeconds: settings.disableAfterSeconds,
    });
    const log = { deliveryId: d.id, webhookId: d.webhookId, eventId: d.eventId, type: d.type, attempt, statusCode: result.statusCode, durationMs: result.durationMs };
    if (result.ok) this.logger.log({ ...log }, 'webhook delivered');
    else this.logger.warn({ ...log, error: result.error, nextAttemptAt: nextAttemptAt?.toISOString() ?? null }, 'webhook delivery attempt failed');
    if (disabledReason) this.logger.warn({ webhookId: d.webhookId, reason: disabledReason }, 'webhook disabled: it keeps failing');
    if (nextAttemptAt && !disabledReason) {
      // A queue that cannot take the retry now leaves it to the sweep, which finds it overdue in the rows.
      await this.producer.schedule([{ deliveryId: d.id, attempt: attempt + 1, at: nextAttemptAt }]).catch((err: Error) => {
        this.logger.warn({ deliveryId: d.id, err: err.message }, 'the retry of a webhook delivery could not be queued; the sweep will');
      });
    }
    return { kind: result.ok ? 'delivered' : nextAttemptAt ? 'retrying' : 'failed', attempt, nextAttemptAt };
  }

  async onModuleDestroy(): Promise<void> {
    await this.sender.close();
  }
}
