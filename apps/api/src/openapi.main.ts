import { loadConfig } from '@app/config';
import { createLogger, Metrics } from '@app/observability';
import { Runtime } from '@app/platform';
import { NestFactory } from '@nestjs/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createOpenApiDocument } from './api.app';
import { AppModule } from './app.module';

/**
 * Writes the API's OpenAPI document (what /docs-json serves) to the file named by the first argument, without a
 * database, a queue or a listening server: the application is built in Nest's preview mode, which reads the
 * routes and their DTOs but instantiates no provider. The console's API types are generated from this file.
 */
async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: openapi.main.js <output.json>');
  const config = loadConfig({ NODE_ENV: 'test', ADMIN_API_KEY: 'preview-only-never-used-key-000', CREDENTIALS_KEY: Buffer.alloc(32).toString('base64') }, { workerDefault: false });
  // Preview mode resolves no provider, so the runtime's resources are never touched: only its config is read.
  const runtime = { role: 'api', config, logger: createLogger('silent', 'openapi'), metrics: new Metrics() } as unknown as Runtime;
  const app = await NestFactory.create(AppModule.forRoot(runtime), { preview: true, logger: false, abortOnError: false });
  const document = createOpenApiDocument(app);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(document, null, 2) + '\n');
  await app.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`openapi: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
