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
  @ApiProperty({ description: 'A URI reference identifying the problem type', example: 'about:blank' })
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

export function problemType(status: number): string {
  return status >= 500 ? 'about:blank' : `https://httpstatuses.io/${status}`;
}
