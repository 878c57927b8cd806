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

export function problemType(status: number): string {
  return `/problems/${PROBLEM_TYPES[status] ?? (status >= 500 ? 'internal-error' : 'invalid-input')}`;
}
