export { createLogger, loggerOptions, REDACT_PATHS, Logger } from './logger';
export { Metrics } from './metrics';
export { FrameworkQuietLogger } from './nest-logger';
export { PinoNestLogger, requestContext, requestLogging, type RequestBinding } from './request-log';
