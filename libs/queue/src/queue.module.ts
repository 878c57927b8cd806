import { DynamicModule, Global, Module } from '@nestjs/common';
import { DISCOVERY_JOB_POLICY, DiscoveryJobPolicy, DiscoveryProducer } from './discovery.producer';

/** Provides the producer; the QueueConnection itself comes from the process runtime. */
@Global()
@Module({})
export class QueueModule {
  static forRoot(policy: DiscoveryJobPolicy): DynamicModule {
    return {
      module: QueueModule,
      providers: [{ provide: DISCOVERY_JOB_POLICY, useValue: policy }, DiscoveryProducer],
      exports: [DiscoveryProducer],
    };
  }
}
