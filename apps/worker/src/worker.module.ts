import { DiscoveryModule } from '@app/discovery';
import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryProcessor } from './discovery.processor';

/** The discovery worker: processors and schedulers, no controllers. */
@Module({})
export class WorkerModule {
  static forRoot(): DynamicModule {
    return {
      module: WorkerModule,
      imports: [DiscoveryModule],
      providers: [DiscoveryProcessor],
    };
  }
}
