// First: importing early-signals is what installs its handlers, so a main imports this module before anything else.
import { EarlySignals, trapEarlySignals } from './early-signals';
import { AppConfig, loadConfig } from '@app/config';
import { failStartup, handleShutdownSignals } from './process';
import { Role, Runtime, startRuntime } from './runtime';

/** Brings a role up on its runtime and answers how to take it down again (the runtime is closed after it). */
export type StartRole = (runtime: Runtime, config: AppConfig) => Promise<() => Promise<void>>;

/**
 * The life of a registry process (the API or a worker): the configuration, the runtime of its role, the role
 * started on it, and a clean stop on SIGTERM or SIGINT, one that came while starting included. A start that
 * fails closes the runtime and is printed as one line (failStartup). Not exported from the lib's index: only a
 * main imports it, first (see early-signals).
 */
export function runRegistryProcess(role: (config: AppConfig) => Role, start: StartRole): void {
  const main = async (): Promise<void> => {
    const config = loadConfig(process.env, { workerDefault: true });
    const early: EarlySignals = trapEarlySignals(config.shutdownTimeoutMs);
    const runtime = await startRuntime(role(config), config);
    let stop: () => Promise<void>;
    try {
      stop = await start(runtime, config);
    } catch (err) {
      await runtime.close();
      throw err;
    }
    handleShutdownSignals(
      async () => {
        await stop();
        await runtime.close();
      },
      runtime.logger,
      config.shutdownTimeoutMs,
      early,
    );
  };
  main().catch(failStartup);
}
