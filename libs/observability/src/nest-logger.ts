import type { LoggerService } from '@nestjs/common';

/** The contexts in which Nest itself reports how it boots (modules loaded, routes mapped, app started). */
const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'NestApplication',
  'NestApplicationContext',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
]);

/**
 * Wraps the Nest logger so that the framework's start-up chatter (a line per
 * module and per route) is written at debug level: an operator sees it with
 * LOG_LEVEL=debug and otherwise only the registry's own lines.
 */
export class FrameworkQuietLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  // As in Nest's LoggerService, the last optional parameter is the context.
  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) {
      (this.inner.debug ?? this.inner.log).call(this.inner, message, ...optionalParams);
    } else {
      this.inner.log(message, ...optionalParams);
    }
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.debug?.(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    (this.inner.fatal ?? this.inner.error).call(this.inner, message, ...optionalParams);
  }
}
