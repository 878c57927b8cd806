// First: a SIGTERM that comes while the process loads and starts is kept for a clean stop (see the module).
import { trapEarlySignals } from '../../../libs/platform/src/early-signals';
import { loadConfig } from '@app/config';
import { failStartup, handleShutdownSignals, startRuntime } from '@app/platform';
import { WorkerModule } from '@app/worker';
import { createApiApp } from './api.app';
import { HttpDrain } from './http/http-drain';

/**
 * The API process. With WORKER_ENABLED (the default for `npm start`) it also
 * runs the discovery worker, so one process is a whole registry.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env, { workerDefault: true });
  const early = trapEarlySignals(config.shutdownTimeoutMs);
  const runtime = await startRuntime(config.workerEnabled ? 'all' : 'api', config);
  let app;
  try {
    app = await createApiApp(runtime, config.workerEnabled ? [WorkerModule.forRoot()] : []);
    await app.listen(config.port, config.host);
  } catch (err) {
    await app?.close().catch(() => undefined);
    await runtime.close();
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
  handleShutdownSignals(
    async () => {
      // No new requests from now on; calls and jobs in flight finish within SHUTDOWN_TIMEOUT_MS.
      started.get(HttpDrain).begin();
      await started.close();
      await runtime.close();
    },
    runtime.logger,
    config.shutdownTimeoutMs,
    early,
  );
}

main().catch(failStartup);
