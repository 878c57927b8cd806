// First: a SIGTERM that comes while the process loads and starts is kept for a clean stop (see the module).
import { trapEarlySignals } from '../../../libs/platform/src/early-signals';
import { loadConfig } from '@app/config';
import { failStartup, handleShutdownSignals, PlatformModule, startRuntime } from '@app/platform';
import { WorkerModule } from '@app/worker';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startWorkerMetricsServer } from './metrics-server';

/** A discovery worker process: no HTTP; run as many as the queue needs. */
async function main(): Promise<void> {
  const config = loadConfig(process.env, { workerDefault: true });
  const early = trapEarlySignals(config.shutdownTimeoutMs);
  const runtime = await startRuntime('worker', config);
  @Module({ imports: [PlatformModule.forRoot(runtime), WorkerModule.forRoot()] })
  class WorkerRootModule {}
  const app = await NestFactory.createApplicationContext(WorkerRootModule, { logger: ['error', 'warn'] });
  await app.init();
  const metricsServer =
    config.workerMetricsPort !== undefined
      ? await startWorkerMetricsServer(runtime.metrics, config.host, config.workerMetricsPort)
      : undefined;
  runtime.logger.info(
    { queue: runtime.queue.kind, concurrency: config.discovery.concurrency, metricsPort: config.workerMetricsPort },
    'worker ready',
  );
  handleShutdownSignals(
    async () => {
      await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
      await app.close();
      await runtime.close();
    },
    runtime.logger,
    config.shutdownTimeoutMs,
    early,
  );
}

main().catch(failStartup);
