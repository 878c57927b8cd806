/**
 * Domain errors. Services throw these; one HTTP filter maps them to RFC 9457
 * problem documents. None of them may carry a secret in its message.
 */
export interface FieldError {
  field: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly title: string;
  constructor(
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidInputError extends DomainError {
  readonly status = 400;
  readonly title = 'Invalid input';
}

export class UnauthenticatedError extends DomainError {
  readonly status = 401;
  readonly title = 'Unauthorized';
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
  readonly title = 'Forbidden';
}

export class NotFoundError extends DomainError {
  readonly status = 404;
  readonly title = 'Not found';
}

export class ConflictError extends DomainError {
  readonly status = 409;
  readonly title = 'Conflict';
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  readonly title = 'Payload too large';
}

export class RateLimitedError extends DomainError {
  readonly status = 429;
  readonly title = 'Too many requests';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The upstream MCP server (or Pipedream) failed; the registry itself is fine. */
export class UpstreamError extends DomainError {
  readonly status = 502;
  readonly title = 'Upstream error';
}

export class UpstreamTimeoutError extends DomainError {
  readonly status = 504;
  readonly title = 'Upstream timeout';
}

/** A capability that needs configuration the operator has not given. */
export class NotConfiguredError extends DomainError {
  readonly status = 422;
  readonly title = 'Not configured';
}

/** The registry itself cannot answer now (a service it stands on is down, or it is stopping): try again later. */
export class ServiceUnavailableError extends DomainError {
  readonly status = 503;
  readonly title = 'Service unavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}

/**
 * A limit a refusal is about: its name as the tenant's limits call it (`maxServers`), the value that applies to
 * the tenant, and the variable of its platform default. Shown as the problem's `limit` member.
 */
export interface LimitInfo {
  name: string;
  value: number;
  variable: string;
}

/** A refusal that names the limit it enforces (see LimitInfo). */
export interface LimitRefusal {
  readonly limit: LimitInfo;
}

export function isLimitRefusal(err: unknown): err is DomainError & LimitRefusal {
  return err instanceof DomainError && typeof (err as Partial<LimitRefusal>).limit?.name === 'string';
}

/** The request would take the tenant past a quota (servers, tools): nothing was done. */
export class QuotaExceededError extends DomainError implements LimitRefusal {
  readonly status = 409;
  readonly title = 'Quota exceeded';
  constructor(
    message: string,
    readonly limit: LimitInfo,
  ) {
    super(message);
  }
}

/** The tenant has as much in flight as its limit allows (calls, result bytes): try again shortly. */
export class InFlightLimitError extends RateLimitedError implements LimitRefusal {
  constructor(
    message: string,
    retryAfterSeconds: number,
    readonly limit: LimitInfo,
  ) {
    super(message, retryAfterSeconds);
  }
}

/** A tool's answer was larger than the registry accepts from one call: it was cut off and nothing of it returned. */
export class ResultTooLargeError extends UpstreamError implements LimitRefusal {
  constructor(
    message: string,
    readonly limit: LimitInfo,
  ) {
    super(message);
  }
}
