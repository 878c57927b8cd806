import { loggerOptions } from '@app/observability';
import { PlatformModule, Runtime } from '@app/platform';
import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { HealthModule } from './health/health.module';
import { ProblemFilter } from './http/problem.filter';
import { McpEndpointModule } from './mcp/mcp-endpoint.module';
import { RegistryApiModule } from './registry-api.module';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

@Module({})
export class AppModule {
  /** The API, plus the discovery worker when this process also runs jobs. */
  static forRoot(runtime: Runtime, extra: (Type | DynamicModule)[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(runtime),
        LoggerModule.forRoot({
          pinoHttp: {
            ...loggerOptions(runtime.config.logLevel, runtime.role),
            logger: runtime.logger,
            genReqId: (req, res) => {
              const incoming = req.headers['x-request-id'];
              const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
              res.setHeader('X-Request-Id', id);
              return id;
            },
            customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
            serializers: {
              req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
              res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
            },
            autoLogging: { ignore: (req) => req.url === '/health/live' || req.url === '/metrics' },
          },
        }),
        HealthModule,
        RegistryApiModule,
        McpEndpointModule,
        ...extra,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
