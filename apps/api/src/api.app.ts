import { FrameworkQuietLogger, Metrics, PinoNestLogger, requestLogging } from '@app/observability';
import { Runtime } from '@app/platform';
import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { AppModule } from './app.module';
import { mountConsole } from './console/console.static';
import { answerClientErrors } from './http/client-errors';
import { HttpDrain } from './http/http-drain';
import { ProblemDto } from './http/problem';
import { jsonBodyReader } from './http/json-body-reader';
import { createValidationPipe } from './http/validation.pipe';

/** The largest request body taken, in bytes (1 MiB). */
export const BODY_LIMIT = 1024 * 1024;

/** Probes and scrapes: answered without a "request completed" line each. */
const QUIET_PATHS = new Set(['/health/live', '/metrics']);

function metricsMiddleware(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const route =
        (req.route?.path as string | undefined) ??
        (res.statusCode === 404 ? 'unmatched' : isConsolePath(req.path) ? 'console' : req.path);
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method: req.method, route }, seconds);
    });
    next();
  };
}

/** The OpenAPI document of the application's routes (served at /docs-json; the console's types come from it). */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const doc = new DocumentBuilder()
    .setTitle('MCP Registry')
    .setDescription(
      'The registry of every MCP server a platform can reach: register servers by kind, follow their discovery, ' +
        'and find and call their tools. Every /api/v1 and /mcp request carries `Authorization: Bearer <key>`: ' +
        'the admin key or a tenant key. Errors are RFC 9457 problem+json.',
    )
    .setVersion('1')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key',
      description:
        'An API key sent as `Authorization: Bearer <key>`: the admin key (ADMIN_API_KEY) or a tenant key (`mcpr_…`, made with ' +
        'POST /api/v1/tenants/{tenantId}/api-keys). Keys are opaque strings, not JWTs.',
    })
    .build();
  return SwaggerModule.createDocument(app, doc, { extraModels: [ProblemDto] });
}

/** The console's own paths: one metrics label for all (asset names change with every build). */
function isConsolePath(path: string): boolean {
  return path === '/' || path === '/index.html' || path.startsWith('/assets/');
}

/** Builds the HTTP application (not yet listening): used by `main.ts` and by the end-to-end tests. */
export async function createApiApp(runtime: Runtime, extra: (Type | DynamicModule)[] = []): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(runtime, extra), {
    logger: new FrameworkQuietLogger(new PinoNestLogger(runtime.logger)),
    bodyParser: false,
    // Idle keep-alive and long-lived streams must not hold the process past SIGTERM.
    forceCloseConnections: true,
  });
  app.disable('x-powered-by');
  answerClientErrors(app.getHttpServer());
  app.set('trust proxy', false);
  app.use(requestLogging(runtime.logger, { quietPaths: QUIET_PATHS }));
  app.use(metricsMiddleware(runtime.metrics));
  // Once the process is stopping, new requests are refused and those in flight are waited for (see HttpDrain).
  const drain = app.get(HttpDrain);
  drain.attach(app.getHttpServer());
  app.use(drain.middleware());
  // The usual body is read by jsonBodyReader; body-parser takes the rest (other JSON types, compressed, chunked).
  app.use(jsonBodyReader(BODY_LIMIT));
  app.useBodyParser('json', { limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  app.useGlobalPipes(createValidationPipe());
  if (runtime.config.corsOrigins.length > 0) app.enableCors({ origin: runtime.config.corsOrigins });

  mountConsole(app);
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app), { jsonDocumentUrl: 'docs-json' });
  return app;
}
