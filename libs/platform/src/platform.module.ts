import { APP_CONFIG } from '@app/config';
import { CHANGE_FEED_OPTIONS } from '@app/database';
import { QueueModule } from '@app/queue';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { Runtime } from './runtime';
import { METRICS, PRISMA, QUEUE_CONNECTION, RUNTIME, SQL } from './tokens';

/** Hands the resources made at start to Nest's container; they are closed by the process, not by Nest. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        QueueModule.forRoot(
          { attempts: runtime.config.discovery.attempts, backoffMs: 1000 },
          { attempts: runtime.config.webhooks.attempts, backoffMs: runtime.config.webhooks.backoffMs },
        ),
      ],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: APP_CONFIG, useValue: runtime.config },
        { provide: PRISMA, useValue: runtime.prisma },
        { provide: SQL, useValue: runtime.sql },
        { provide: QUEUE_CONNECTION, useValue: runtime.queue },
        { provide: METRICS, useValue: runtime.metrics },
        { provide: CHANGE_FEED_OPTIONS, useValue: { connectionString: runtime.databaseUrl, availability: runtime.database } },
      ],
      exports: [QueueModule, RUNTIME, APP_CONFIG, PRISMA, SQL, QUEUE_CONNECTION, METRICS, CHANGE_FEED_OPTIONS],
    };
  }
}
