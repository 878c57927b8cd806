import { FieldError, LimitInfo } from '@app/domain';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { DocumentedFields } from '../common/api-fields';

export class ProblemFieldError extends DocumentedFields({
  field: ['The field, as a dotted path', 'url'],
  message: ['What is wrong with it', 'must be a URL'],
}) {}

export class ProblemLimit extends DocumentedFields({
  name: ["The limit, as the tenant's limits name it", 'maxServers'],
  value: ['Its value for this tenant', 200],
  variable: ['The environment variable of its platform default', 'TENANT_MAX_SERVERS'],
}) {}

/** RFC 9457 problem details: the body of every error. */
export class ProblemDto extends DocumentedFields({
  type: ['The problem type: /problems/<slug>, one per kind of problem (docs/errors.md lists them)', '/problems/invalid-input'],
  title: ['Short summary of the problem type', 'Invalid input'],
  status: ['HTTP status code', 400],
  detail: ['What went wrong in this occurrence', 'url: must be a URL'],
}) {
  @ApiPropertyOptional({ description: 'One entry per invalid field', type: [ProblemFieldError] })
  errors?: FieldError[];

  @ApiPropertyOptional({
    description: 'For a refusal by a limit (429, 409, 502): which limit, the value that applies to the tenant, and the variable of its platform default',
    type: ProblemLimit,
  })
  limit?: LimitInfo;

  @ApiPropertyOptional({ description: 'For a 500: the id of the log line that holds the cause' })
  errorId?: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * The problem types: one per kind of problem, named by a path of the registry's own (`/problems/<slug>`, a
 * URI reference resolved against the registry's URL), the same for every endpoint. docs/errors.md lists them.
 */
export const PROBLEM_TYPES: Record<number, string> = {
  400: 'invalid-input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  406: 'not-acceptable',
  408: 'request-timeout',
  409: 'conflict',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  422: 'not-configured',
  429: 'too-many-requests',
  431: 'request-header-fields-too-large',
  500: 'internal-error',
  502: 'upstream-error',
  503: 'service-unavailable',
  504: 'upstream-timeout',
};

/** Each problem type's title: the same for every answer of its status, whichever part of the registry gives it. */
export const PROBLEM_TITLES: Record<number, string> = {
  400: 'Invalid input',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  409: 'Conflict',
  413: 'Payload too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  422: 'Not configured',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal server error',
  502: 'Upstream error',
  503: 'Service unavailable',
  504: 'Upstream timeout',
};

/** A status without a type of its own is answered as invalid input (4xx) or an internal error (5xx). */
function typedStatus(status: number): number {
  return PROBLEM_TYPES[status] ? status : status >= 500 ? 500 : 400;
}

export function problemType(status: number): string {
  return `/problems/${PROBLEM_TYPES[typedStatus(status)]}`;
}

/** The title of the problem type a status is answered with. */
export function problemTitle(status: number): string {
  return PROBLEM_TITLES[typedStatus(status)];
}
