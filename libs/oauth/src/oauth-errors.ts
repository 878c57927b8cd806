import { oneLine } from '@app/domain';
import { FetchLike, McpFailure, McpFailureCode } from '@app/mcp';

/** The start of every reason a server that needs a person's consent ends ERROR with. */
export const AUTHORIZATION_REQUIRED = 'authorization required';
/** The start of the reason after the authorization server refused a refresh. */
export const AUTHORIZATION_EXPIRED = 'authorization expired';

/** Text an authorization server or a server sent, made safe to show: one line, bounded, no control characters. */
export const untrusted = oneLine;

/** A failure of the authorization flow that no retry will change until someone acts (the reason says who and how). */
export function authorizationFailure(reason: string): McpFailure {
  return new McpFailure(McpFailureCode.Unauthorized, reason, 401);
}

/** The authorization server could not be reached or answered 5xx: worth another attempt later. */
export function authorizationServerUnavailable(issuer: string, what: string, err: unknown): McpFailure {
  return new McpFailure(
    McpFailureCode.DependencyUnavailable,
    `the authorization server ${untrusted(issuer)} could not be reached for ${what}: ${untrusted((err as Error)?.message ?? err)}`,
  );
}

/**
 * A fetch whose answers are the global Response class: the outbound policy's fetch answers with the undici
 * package's own, which the SDK's OAuth helpers do not recognise (`instanceof Response`) when they read an error.
 */
export function globalResponses(fetch: FetchLike): FetchLike {
  return async (input, init) => {
    const res: Response = await fetch(input, init);
    if (res.constructor === Response) return res;
    const empty = res.status === 204 || res.status === 304 || res.status < 200;
    return new Response(empty ? null : res.body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
