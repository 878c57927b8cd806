import type { FetchLike } from '../connection/byte-budget';

/**
 * A fetch for sessions that live long. The SDK's HTTP client transports pass one AbortSignal, held for the
 * whole session, to every request; fetch registers a listener on it per request and drops it only when the
 * request is garbage-collected, and it counts that signal's listeners on every request. On a session that
 * serves thousands of calls, that count is what a call spends most of its time on. Each request here gets a
 * signal of its own that follows the session's (AbortSignal.any tracks it without a listener).
 */
export function detachedSignalFetch(fetch: FetchLike): FetchLike {
  return (url, init) => fetch(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);
}
