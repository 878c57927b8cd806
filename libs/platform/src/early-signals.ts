/**
 * SIGTERM and SIGINT from the first line of a process's start-up. Each main imports this module (through registry-process) before
 * anything else (and nothing else does: importing it is what installs the handlers), so that a stop asked for while the process is still loading or starting is not the
 * signal's default (exit 143) but a clean stop as soon as the process is ready (handleShutdownSignals).
 * A start that does not finish within the bound after the signal is abandoned with exit 0: nothing was
 * served yet, a migration under way rolls back with its connection, and a discovery a worker had begun is
 * taken up again by another once its lease runs out. A second signal exits at once (exit 1).
 */

/** A SIGTERM or SIGINT that came while the process was still starting. */
export interface EarlySignals {
  readonly received?: NodeJS.Signals;
  /** Stops listening (the running process's handlers take over). */
  dispose(): void;
}

/** Until the configuration says otherwise (SHUTDOWN_TIMEOUT_MS). */
const DEFAULT_BOUND_MS = 30_000;

const state: { received?: NodeJS.Signals; timer?: NodeJS.Timeout; boundMs: number } = { boundMs: DEFAULT_BOUND_MS };

function arm(): void {
  clearTimeout(state.timer);
  state.timer = setTimeout(() => {
    process.stderr.write(`the start did not finish within ${state.boundMs} ms of ${state.received}; exiting\n`);
    process.exit(0);
  }, state.boundMs);
  state.timer.unref();
}

function onSignal(signal: NodeJS.Signals): void {
  if (state.received) {
    // Asked twice: the stop is not waited for.
    process.stderr.write(`${signal} again while starting: exiting now\n`);
    process.exit(1);
  }
  state.received = signal;
  process.stderr.write(`${signal} while starting: stopping once started\n`);
  arm();
}

process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

/** The early signal, if any, with the start-up bound now known; dispose() when the process's own handlers are in place. */
export function trapEarlySignals(boundMs: number): EarlySignals {
  state.boundMs = boundMs;
  if (state.received) arm();
  return {
    get received() {
      return state.received;
    },
    dispose() {
      clearTimeout(state.timer);
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
