import type { ServerRecord } from '@app/domain';
import type { FetchLike } from './byte-budget';
import type { McpFailure } from './mcp-failure';

/** A refusal as the server said it: the HTTP status and its WWW-Authenticate header. */
export interface UpstreamChallenge {
  status: number;
  header: string | null;
}

/** After a refusal: a fresh token is ready (connect once more), or the failure to report (authorization required or expired). */
export type RefusalVerdict = { retry: true } | { retry: false; failure?: McpFailure };

/** An OAuth access token held for a server. Never logged, queued or shown. */
export interface HeldToken {
  accessToken: string;
  expiresAt: Date | null;
}

/**
 * Upstream OAuth as the connection path sees it (implemented by the OAuth module; absent, servers are reached
 * with their static credentials only). `fetch` is the server's own: the outbound policy's for a tenant server,
 * so that every URL the authorization flow reaches passes the same address policy as the server's URL.
 */
export interface UpstreamAuthorizer {
  /**
   * The token to send to the server now, refreshed first when it is about to expire (one refresh per token
   * across processes), or fetched with the client credentials grant; undefined when none is held. Throws a
   * McpFailure when the authorization server refused a refresh (the server's authorization is then expired).
   */
  tokenFor(server: ServerRecord, fetch: FetchLike): Promise<HeldToken | undefined>;
  /**
   * The server refused a request (401, or 403 insufficient_scope) made with `sent` (or with no token): finds
   * out how it is protected (resource and authorization server metadata), refreshes a refused token once, and
   * says whether one more attempt is worth it.
   */
  refused(server: ServerRecord, challenge: UpstreamChallenge, sent: string | undefined, fetch: FetchLike): Promise<RefusalVerdict>;
}

/** Injection token of the UpstreamAuthorizer (optional). */
export const UPSTREAM_AUTHORIZER = Symbol('UPSTREAM_AUTHORIZER');

/** The OAuth side of one HTTP connection target: the token it carries and the refusal it may meet. */
export interface TargetAuthorization {
  /** The access token sent, if any. */
  token?: string;
  expiresAt: Date | null;
  /** The last 401/403 answer seen on this target's requests. */
  lastChallenge?: UpstreamChallenge;
  /** Called by transports with every 401/403 answer. */
  record(status: number, header: string | null): void;
  /** Asks the authorizer what to do about the last refusal. */
  refused(status?: number): Promise<RefusalVerdict>;
}

/** A fetch that tells `record` the WWW-Authenticate of every 401/403 answer (the SDK's transports do not keep it). */
export function challengeRecordingFetch(fetch: FetchLike, record: TargetAuthorization['record']): FetchLike {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (res.status === 401 || res.status === 403) record(res.status, res.headers.get('www-authenticate'));
    return res;
  };
}
