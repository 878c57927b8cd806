export { PRISMA, QUEUE_CONNECTION, METRICS, RUNTIME } from './tokens';
export { startRuntime, Runtime, Role, DatabaseUnavailableError } from './runtime';
export { PlatformModule } from './platform.module';
export { failStartup, handleShutdownSignals } from './process';
export { trapEarlySignals, EarlySignals } from './early-signals';
