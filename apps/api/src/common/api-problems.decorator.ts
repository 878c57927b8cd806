import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE, problemTitle, problemType } from '../http/problem';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: malformed JSON, unknown fields, wrong types or values; `errors` names each field',
  401: 'No API key, or a key that is unknown or revoked',
  403: 'The caller may not perform this action (an admin-only action, or a kind that cannot be written through the API)',
  404: 'No such resource among those the caller may see',
  405: 'The method is not part of this protocol revision (the Allow header names those that are)',
  406: 'The Accept header does not admit the media type this answer has',
  409: 'A conflicting resource exists (for instance a server of the same name for this owner), or the tenant would pass its server limit (`limit` names it: maxServers)',
  413: 'The request body is larger than 1 MB',
  422: 'The capability needs configuration the operator has not given',
  429: "The tenant's tool calls are over RATE_LIMIT_PER_MINUTE, or it has as many calls or result bytes in flight as its limits allow (`limit` names it: maxCallsInFlight, maxResultBytesInFlight); the Retry-After header says how many seconds to wait",
  502: 'The upstream MCP server failed (refused the connection, answered an error, broke the protocol) or answered more than toolResultMaxBytes (`limit` names it); the detail says how',
  504: 'The upstream MCP server did not answer in time (CALL_TIMEOUT_MS without progress, CALL_MAX_TIMEOUT_MS in all)',
};

const URL_RULE = 'must be an absolute http(s) URL of at most 2048 characters, without a user name or password (those go in credentials)';

/** One example detail per status, as the API answers it (docs/errors.md lists the types). */
const EXAMPLE_DETAILS: Record<number, string> = {
  400: `url: ${URL_RULE}`,
  401: 'the API key is unknown or revoked',
  403: 'only the platform administrator may do this',
  404: 'server 0193a5b2-7c1e-7d3a-9f40-5e6d7c8b9a01 not found',
  405: 'DELETE is not supported: this endpoint keeps no sessions',
  406: 'Not Acceptable: the change stream is text/event-stream',
  409: 'a server named "github" already exists for this owner',
  413: 'the request body is too large',
  422: 'Pipedream Connect is not configured: set PIPEDREAM_CLIENT_ID, PIPEDREAM_CLIENT_SECRET and PIPEDREAM_PROJECT_ID',
  429: 'this tenant is over its limit of tool calls per minute; try again in 12 s',
  502: 'the server answered 401 Unauthorized: the credentials are missing, wrong or expired',
  503: 'the database is not answering; try again shortly',
  504: 'the server did not answer within 30 s',
};

/** The example problem document of a status: its type and title, and the example detail (for a 400, with the field it names). */
export function problemExample(status: number): Record<string, unknown> {
  const detail = EXAMPLE_DETAILS[status];
  if (detail === undefined) return { type: problemType(status), title: 'Error', status, detail: 'the request could not be answered' };
  return { type: problemType(status), title: problemTitle(status), status, detail, ...(status === 400 ? { errors: [{ field: 'url', message: URL_RULE }] } : {}) };
}

/** Documents the RFC 9457 problem answers an endpoint can give, each with an example of its own status. */
export function ApiProblems(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: getSchemaPath('ProblemDto') }, example: problemExample(status) } },
      }),
    ),
  );
}

/** Every /api/v1 endpoint: a bearer key, and the answers any authenticated request can get. */
export function ApiAuthenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth(), ApiProblems(401));
}
