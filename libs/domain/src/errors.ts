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

export class ServiceUnavailableError extends DomainError {
  readonly status = 503;
  readonly title = 'Service unavailable';
}
