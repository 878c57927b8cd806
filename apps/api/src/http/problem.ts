import { FieldError, LimitInfo } from '@app/domain';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ProblemFieldError {
  @ApiProperty({ description: 'The field, as a dotted path', example: 'url' })
  field!: string;

  @ApiProperty({ description: 'What is wrong with it', example: 'must be a URL' })
  message!: string;
}

export class ProblemLimit {
  @ApiProperty({ description: "The limit, as the tenant's limits name it", example: 'maxServers' })
  name!: string;

  @ApiProperty({ description: 'Its value for this tenant', example: 200 })
  value!: number;

  @ApiProperty({ description: 'The environment variable of its platform default', example: 'TENANT_MAX_SERVERS' })
  variable!: string;
}

/** RFC 9457 problem details: the body of every error. */
export class ProblemDto {
  @ApiProperty({ description: 'The problem type: /problems/<slug>, one per kind of problem (docs/errors.md lists them)', example: '/problems/invalid-input' })
  type!: string;

  @ApiProperty({ description: 'Short summary of the problem type', example: 'Invalid input' })
  title!: string;

  @ApiProperty({ description: 'HTTP status code', example: 400 })
  status!: number;

  @ApiProperty({ description: 'What went wrong in this occurrence', example: 'url: must be a URL' })
  detail!: string;

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
