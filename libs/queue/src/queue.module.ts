import { DynamicModule, Global, Module } from '@nestjs/common';
import { DISCOVERY_JOB_POLICY, DiscoveryJobPolicy, DiscoveryProducer } from './discovery.producer';
import { WEBHOOK_JOB_POLICY, WebhookJobPolicy, WebhookProducer } from './webhook.producer';

/** Provides the producers; the QueueConnection itself comes from the process runtime. */
@Global()
@Module({})
export class QueueModule {
  static forRoot(policy: DiscoveryJobPolicy, webhooks: WebhookJobPolicy): DynamicModule {
    return {
      module: QueueModule,
      providers: [{ provide: DISCOVERY_JOB_POLICY, useValue: policy }, DiscoveryProducer, { provide: WEBHOOK_JOB_POLICY, useValue: webhooks }, WebhookProducer],
      exports: [DiscoveryProducer, WebhookProducer],
    };
  }
}
