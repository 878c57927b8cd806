import pino, { Logger, LoggerOptions } from 'pino';
import { currentRequest } from './request-log';

/**
 * Paths pino blanks in every log line. Credentials are never logged on purpose;
 * this is the second line of defence for a header or body that slips through.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.credentials',
  '*.bearerToken',
  '*.password',
  '*.secret',
  '*.token',
  '*.access_token',
  '*.client_secret',
  'credentials',
  'headers.authorization',
];

export function loggerOptions(level: string, role: string): LoggerOptions {
  return {
    level,
    base: { role, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    // A line written while a request is handled says which request (see request-log.ts).
    mixin: () => {
      const req = currentRequest();
      return req ? { req } : {};
    },
  };
}

/** The process logger for code outside a request (startup, jobs, shutdown). JSON lines on stdout. */
export function createLogger(level: string, role: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level, role), destination) : pino(loggerOptions(level, role));
}

export type { Logger };
