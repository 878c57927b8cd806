import type { Logger } from '@app/observability';
import type { EarlySignals } from './early-signals';

const KNOWN_STARTUP_ERRORS = new Set([
  'ConfigError',
  'DatabaseUnavailableError',
  'QueueUnavailableError',
  'DataDirLockedError',
  'MigrationError',
]);

/** Prints a start-up failure as one line naming its cause (no stack for the known ones) and exits 1. */
export function failStartup(err: unknown): never {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string; hostname?: string };
  let line: string;
  if (e && KNOWN_STARTUP_ERRORS.has(e.name)) {
    line = e.message;
  } else if (e?.code === 'EADDRINUSE') {
    line = `PORT: ${e.address ?? ''}:${e.port ?? ''} is already in use`;
  } else if (e?.code === 'EACCES' && e.syscall === 'listen') {
    line = `PORT: not allowed to listen on ${e.address ?? ''}:${e.port ?? ''}`;
  } else if (e?.code === 'EADDRNOTAVAIL' || e?.code === 'ENOTFOUND') {
    line = `HOST: cannot listen on ${e.address ?? e.hostname ?? ''} (${e.code})`;
  } else {
    line = e instanceof Error ? (e.stack ?? e.message) : String(err);
  }
  process.stderr.write(`error: ${line}\n`);
  process.exit(1);
}

/**
 * On SIGTERM or SIGINT: run `stop` (stop taking requests and jobs, let running
 * jobs finish, close pools) and exit 0; exit 1 if it does not finish within the bound.
 * A signal that came during start-up (`early`) stops the process now.
 */
export function handleShutdownSignals(stop: () => Promise<void>, logger: Logger, boundMs: number, early?: EarlySignals): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ boundMs }, 'shutdown did not finish within the bound; exiting');
      process.exit(1);
    }, boundMs + 5000);
    timer.unref();
    stop()
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  early?.dispose();
  if (early?.received) onSignal(early.received);
}
