import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE } from '../http/problem';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: malformed JSON, unknown fields, wrong types or values; `errors` names each field',
  401: 'No API key, or a key that is unknown or revoked',
  403: 'The caller may not perform this action (an admin-only action, or a kind that cannot be written through the API)',
  404: 'No such resource among those the caller may see',
  409: 'A conflicting resource exists (for instance a server of the same name for this owner), or the tenant would pass its server limit (`limit` names it: maxServers)',
  413: 'The request body is larger than 1 MB',
  422: 'The capability needs configuration the operator has not given',
  429: "The tenant's tool calls are over RATE_LIMIT_PER_MINUTE, or it has as many calls or result bytes in flight as its limits allow (`limit` names it: maxCallsInFlight, maxResultBytesInFlight); the Retry-After header says how many seconds to wait",
  502: 'The upstream MCP server failed (refused the connection, answered an error, broke the protocol) or answered more than toolResultMaxBytes (`limit` names it); the detail says how',
  504: 'The upstream MCP server did not answer in time (CALL_TIMEOUT_MS without progress, CALL_MAX_TIMEOUT_MS in all)',
};

/** Documents the RFC 9457 problem answers an endpoint can give. */
export function ApiProblems(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: getSchemaPath('ProblemDto') } } },
      }),
    ),
  );
}

/** Every /api/v1 endpoint: a bearer key, and the answers any authenticated request can get. */
export function ApiAuthenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth(), ApiProblems(401));
}
