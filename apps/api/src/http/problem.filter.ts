import { DomainError, isLimitRefusal, RateLimitedError, ServiceUnavailableError } from '@app/domain';
import { DATABASE_RETRY_AFTER_SECONDS } from '@app/database';
import { RUNTIME, Runtime } from '@app/platform';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger, Optional } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { PROBLEM_CONTENT_TYPE, ProblemDto, problemTitle, problemType } from './problem';

/** What to say for a body-parser refusal, without quoting the body. */
const BODY_PARSER_DETAILS: Record<string, string> = {
  'entity.parse.failed': 'the request body is not valid JSON',
  'entity.too.large': 'the request body is too large',
  'encoding.unsupported': 'the request body encoding is not supported',
  'charset.unsupported': 'the request body encoding is not supported',
};

/** Maps every error to an RFC 9457 problem document. A 500 is a bug: logged with an id the client also gets. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  constructor(@Optional() @Inject(RUNTIME) private readonly runtime?: Runtime) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    // PostgreSQL away: a 503 to retry, the outage logged once (DatabaseAvailability), not a 500 and a stack per request.
    if (!(exception instanceof DomainError) && this.runtime?.database.failed(exception, true)) {
      exception = new ServiceUnavailableError('the registry cannot reach its database; try again shortly', DATABASE_RETRY_AFTER_SECONDS);
    }
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    const problem = this.toProblem(exception, req);
    if (exception instanceof RateLimitedError || exception instanceof ServiceUnavailableError) {
      res.setHeader('Retry-After', String(exception.retryAfterSeconds));
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    // Clients of the Registry API (/v0.1) read its error model's `error`; the problem's members stay beside it.
    const body = /^\/v0\.1(?:[/?]|$)/i.test(req.originalUrl ?? req.url) ? { ...problem, error: problem.detail } : problem;
    res.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  }

  private toProblem(exception: unknown, req: Request): ProblemDto {
    if (exception instanceof DomainError) {
      return {
        type: problemType(exception.status),
        title: exception.title,
        status: exception.status,
        detail: exception.message,
        ...(exception.errors ? { errors: exception.errors } : {}),
        ...(isLimitRefusal(exception) ? { limit: exception.limit } : {}),
      };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      // The adapter wraps body-parser errors; JSON.parse's message quotes the body, which may hold a credential.
      const parserType = (exception.cause as { type?: unknown } | undefined)?.type;
      return {
        type: problemType(status),
        title: problemTitle(status),
        status,
        detail: typeof parserType === 'string' && BODY_PARSER_DETAILS[parserType] ? BODY_PARSER_DETAILS[parserType] : this.httpDetail(exception, status, req),
      };
    }
    // body-parser errors arrive as plain errors carrying a status.
    const e = exception as { status?: number; type?: string; message?: string };
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      const detail = (e.type !== undefined ? BODY_PARSER_DETAILS[e.type] : undefined) ?? e.message ?? 'bad request';
      return { type: problemType(e.status), title: problemTitle(e.status), status: e.status, detail };
    }
    const errorId = randomUUID();
    this.logger.error({ errorId, err: exception, path: req.path }, 'unhandled error');
    return {
      type: problemType(500),
      title: problemTitle(500),
      status: 500,
      detail: `an internal error occurred; quote error id ${errorId}`,
      errorId,
    };
  }

  private httpDetail(exception: HttpException, status: number, req: Request): string {
    if (status === 404 && exception.message.startsWith('Cannot ')) return `no route for ${req.method} ${req.path}`;
    const body = exception.getResponse();
    if (typeof body === 'string') return body;
    const message = (body as { message?: unknown }).message;
    if (Array.isArray(message)) return message.join('; ');
    if (typeof message === 'string') return message;
    return exception.message;
  }
}
