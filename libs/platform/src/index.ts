export { QUEUE_CONNECTION, METRICS, RUNTIME } from './tokens';
export { startRuntime, Runtime, Role, DatabaseUnavailableError } from './runtime';
export { PlatformModule } from './platform.module';
export { failStartup, handleShutdownSignals } from './process';
export type { EarlySignals } from './early-signals';
export { ShutdownClock } from './shutdown';
