export { createLogger, loggerOptions, REDACT_PATHS, Logger } from './logger';
export { Metrics } from './metrics';
export { FrameworkQuietLogger } from './nest-logger';
export { currentRequest, PinoNestLogger, requestLogging, type RequestBinding } from './request-log';
