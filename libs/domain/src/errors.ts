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

/** The base of each kind of domain error: the HTTP status and problem title it is answered with. */
function problem(status: number, title: string) {
  return class extends DomainError {
    readonly status = status;
    readonly title = title;
  };
}

/** The base of a refusal the client may send again later: answered with Retry-After (`retryAfterSeconds`). */
function retryLater(status: number, title: string) {
  return class extends problem(status, title) {
    constructor(
      message: string,
      readonly retryAfterSeconds: number,
    ) {
      super(message);
    }
  };
}

export class InvalidInputError extends problem(400, 'Invalid input') {}

export class UnauthenticatedError extends problem(401, 'Unauthorized') {}

export class ForbiddenError extends problem(403, 'Forbidden') {}

export class NotFoundError extends problem(404, 'Not found') {}

export class ConflictError extends problem(409, 'Conflict') {}

export class PayloadTooLargeError extends problem(413, 'Payload too large') {}

export class RateLimitedError extends retryLater(429, 'Too many requests') {}

/** The upstream MCP server (or Pipedream) failed; the registry itself is fine. */
export class UpstreamError extends problem(502, 'Upstream error') {}

export class UpstreamTimeoutError extends problem(504, 'Upstream timeout') {}

/** A capability that needs configuration the operator has not given. */
export class NotConfiguredError extends problem(422, 'Not configured') {}

/** The registry itself cannot answer now (a service it stands on is down, or it is stopping): try again later. */
export class ServiceUnavailableError extends retryLater(503, 'Service unavailable') {
  constructor(message: string, retryAfterSeconds = 1) {
    super(message, retryAfterSeconds);
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
export class QuotaExceededError extends problem(409, 'Quota exceeded') implements LimitRefusal {
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
