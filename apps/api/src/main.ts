// First: a SIGTERM that comes while the process loads and starts is kept for a clean stop (see early-signals).
import { runRegistryProcess } from '../../../libs/platform/src/registry-process';
import { WorkerModule } from '@app/worker';
import { createApiApp } from './api.app';
import { HttpDrain } from './http/http-drain';

/**
 * The API process. With WORKER_ENABLED (the default for `npm start`) it also
 * runs the discovery worker, so one process is a whole registry.
 */
runRegistryProcess(
  (config) => (config.workerEnabled ? 'all' : 'api'),
  async (runtime, config) => {
    let app;
    try {
      app = await createApiApp(runtime, config.workerEnabled ? [WorkerModule.forRoot()] : []);
      await app.listen(config.port, config.host);
    } catch (err) {
      await app?.close().catch(() => undefined);
      throw err;
    }
    const address = app.getHttpServer().address() as { port: number };
    const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
    const base = `http://${hostForUrl === '0.0.0.0' ? '127.0.0.1' : hostForUrl}:${address.port}`;
    runtime.logger.info(
      {
        url: base,
        docs: `${base}/docs`,
        database: runtime.embedded ? `embedded (${config.dataDir})` : 'postgresql',
        queue: runtime.queue.kind,
        worker: config.workerEnabled,
      },
      'registry ready',
    );
    const keyWhere = config.adminApiKeyFile ? `in ${config.adminApiKeyFile}` : 'from ADMIN_API_KEY';
    process.stderr.write(
      `\nMCP registry listening on ${base}\n  API docs:  ${base}/docs\n  Admin key: ${keyWhere}\n` +
        `  Database:  ${runtime.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}\n` +
        `  Queue:     ${runtime.queue.kind === 'redis' ? 'Redis (REDIS_URL)' : 'in the database'}\n` +
        `  Worker:    ${config.workerEnabled ? 'running in this process' : 'not in this process'}\n\n`,
    );
    const started = app;
    return async () => {
      // No new requests from now on; calls and jobs in flight finish within SHUTDOWN_TIMEOUT_MS.
      started.get(HttpDrain).begin();
      await started.close();
    };
  },
);
