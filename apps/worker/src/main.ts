// First: a SIGTERM that comes while the process loads and starts is kept for a clean stop (see early-signals).
import { runRegistryProcess } from '../../../libs/platform/src/registry-process';
import { PlatformModule } from '@app/platform';
import { WorkerModule } from '@app/worker';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { startWorkerMetricsServer } from './metrics-server';

/** A discovery worker process: no HTTP; run as many as the queue needs. */
runRegistryProcess(
  () => 'worker',
  async (runtime, config) => {
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
    return async () => {
      await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
      await app.close();
    };
  },
);
