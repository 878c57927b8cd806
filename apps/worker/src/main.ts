import { loadConfig } from '@app/config';
import { failStartup, handleShutdownSignals, PlatformModule, startRuntime } from '@app/platform';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { WorkerModule } from './worker.module';

/** A discovery worker process: no HTTP; run as many as the queue needs. */
async function main(): Promise<void> {
  const config = loadConfig(process.env, { workerDefault: true });
  const runtime = await startRuntime('worker', config);
  @Module({ imports: [PlatformModule.forRoot(runtime), WorkerModule.forRoot()] })
  class WorkerRootModule {}
  const app = await NestFactory.createApplicationContext(WorkerRootModule, { logger: ['error', 'warn'] });
  await app.init();
  runtime.logger.info({ queue: runtime.queue.kind, concurrency: config.discovery.concurrency }, 'worker ready');
  handleShutdownSignals(
    async () => {
      await app.close();
      await runtime.close();
    },
    runtime.logger,
    config.shutdownTimeoutMs,
  );
}

main().catch(failStartup);
