import type { LoggerService } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/** What every log line written while a request is handled says about that request. */
export interface RequestBinding {
  id: string;
  method: string;
  url: string;
}

interface RequestScope {
  req: RequestBinding;
  /** Until the answer is sent: work a request started that outlives it (a timer, a pooled session) is not its. */
  open: boolean;
}

/**
 * The request being handled, carried across every await of its handling. The process logger reads it
 * (see `loggerOptions`), so a line logged anywhere while a request is handled carries `req.id` without a
 * logger object made per request.
 */
const requestContext = new AsyncLocalStorage<RequestScope>();

/** The request a line written now belongs to, if any. */
export function currentRequest(): RequestBinding | undefined {
  const scope = requestContext.getStore();
  return scope?.open ? scope.req : undefined;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestLoggingOptions {
  /** Paths answered without a "request completed" line (probes and scrapes). */
  quietPaths?: ReadonlySet<string>;
}

/** The URL as logged: the query of an OAuth redirect (its authorization code and state) is never written. */
function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  return q !== -1 && url.startsWith('/oauth/') ? `${url.slice(0, q)}?[redacted]` : url;
}

/**
 * The first middleware of the HTTP application: gives each request its id (the caller's `X-Request-Id`
 * when it is a plain token, a new UUID otherwise), echoes it in the response, runs the rest of the
 * request inside `requestContext`, and writes one line when the response is sent or the connection
 * closes first.
 */
export function requestLogging(logger: Logger, options: RequestLoggingOptions = {}) {
  const quiet = options.quietPaths ?? new Set<string>();
  // The completion line holds only the request's id, method and path, its status and time: nothing for the
  // redaction paths to find, so it is written without walking them.
  const access = logger.child({}, { redact: [] });
  return (req: IncomingMessage & { id?: string }, res: ServerResponse, next: () => void): void => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const binding: RequestBinding = { id, method: req.method ?? 'GET', url: loggedUrl(req.url ?? '/') };
    const scope: RequestScope = { req: binding, open: true };
    const logged = !quiet.has(binding.url);
    const started = Date.now();
    const done = (): void => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      scope.open = false;
      if (!logged) return;
      const status = res.statusCode;
      const line = { req: binding, res: { statusCode: status }, responseTime: Date.now() - started };
      if (!res.writableFinished) access.info(line, 'request closed before its answer was sent');
      else if (status >= 500) access.error(line, 'request failed');
      else access.info(line, 'request completed');
    };
    res.on('finish', done);
    res.on('close', done);
    requestContext.run(scope, next);
  };
}

type PinoLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** Nest's loggers (`new Logger(Context)`, the framework's own lines) written as pino lines with `context`. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  // Nest's levels, each written at the pino level of the same meaning.
  readonly verbose = this.writerAt('trace');
  readonly debug = this.writerAt('debug');
  readonly log = this.writerAt('info');
  readonly warn = this.writerAt('warn');
  readonly error = this.writerAt('error');
  readonly fatal = this.writerAt('fatal');

  private writerAt(level: PinoLevel): (message: unknown, ...params: unknown[]) => void {
    return (message, ...params) => this.write(level, message, params);
  }

  /**
   * Nest passes the context last. A message that is an object is merged into the line; an Error becomes
   * `err`. Nest's own exception handler calls `error(message, stack, context)`: that becomes `err` too.
   */
  private write(level: PinoLevel, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    let rest = params;
    if (params.length > 0) {
      fields.context = params[params.length - 1];
      rest = params.slice(0, -1);
    }
    if (message instanceof Error) {
      fields.err = message;
      this.logger[level](fields, message.message, ...rest);
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
      this.logger[level](fields, ...(rest as [string?]));
    } else if (level === 'error' && rest.length === 1 && typeof rest[0] === 'string' && /\n\s*at /.test(rest[0])) {
      const err = new Error(String(message));
      err.stack = rest[0];
      fields.err = err;
      this.logger[level](fields, String(message));
    } else {
      this.logger[level](fields, String(message), ...rest);
    }
  }
}
