import { PlatformModule, Runtime } from '@app/platform';
import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { HealthModule } from './health/health.module';
import { HttpDrain } from './http/http-drain';
import { ProblemFilter } from './http/problem.filter';
import { McpEndpointModule } from './mcp/mcp-endpoint.module';
import { RestApiModule } from './rest-api.module';
import { VirtualServerModule } from './virtual-servers/virtual-server.module';

@Module({})
export class AppModule {
  /** The API, plus the discovery worker when this process also runs jobs. */
  static forRoot(runtime: Runtime, extra: (Type | DynamicModule)[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(runtime),
        HealthModule,
        RestApiModule,
        McpEndpointModule,
        VirtualServerModule,
        ...extra,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }, HttpDrain],
    };
  }
}
