import { formatMs } from '@app/domain';
import { FetchLike } from '@app/mcp';

/** The most an answer of the authorization flow (metadata, registration, token, revocation) may hold. */
export const OAUTH_MAX_RESPONSE_BYTES = 256 * 1024;

function where(input: Parameters<FetchLike>[0]): string {
  try {
    const url = new URL(String(input));
    return url.origin + url.pathname;
  } catch {
    return 'the authorization server';
  }
}

/** An OAuth request that got no (complete) answer in time: transient, the next attempt tries again. */
export class OAuthRequestTimeoutError extends Error {
  /** Read by the detection's test for network failures (worth another attempt). */
  readonly code = 'ETIMEDOUT';
  constructor(url: string, ms: number) {
    super(`${url} did not answer within ${formatMs(ms)}`);
    this.name = 'OAuthRequestTimeoutError';
  }
}

/** An answer larger than OAUTH_MAX_RESPONSE_BYTES: refused unread. */
export class OAuthResponseTooLargeError extends Error {
  constructor(url: string, max: number) {
    super(`the answer of ${url} is larger than ${Math.round(max / 1024)} KiB: refused`);
    this.name = 'OAuthResponseTooLargeError';
  }
}

/**
 * A fetch for the OAuth flow whose every request ends within `timeoutMs`, its answer's body read included, and
 * whose answers are cut past `maxBytes`; answers are the global Response class (what the SDK's helpers expect).
 * A hanging authorization server cannot hold a refresh (and the row lock it holds) longer than that.
 */
export function boundedFetch(fetch: FetchLike, timeoutMs: number, maxBytes = OAUTH_MAX_RESPONSE_BYTES): FetchLike {
  return async (input, init) => {
    const url = where(input);
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new OAuthRequestTimeoutError(url, timeoutMs)), timeoutMs);
    const done = () => clearTimeout(timeout);
    const signal = init?.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
    const failure = (err: unknown) => (timer.signal.aborted ? timer.signal.reason : err);
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal });
    } catch (err) {
      done();
      throw failure(err);
    }
    const empty = res.status === 204 || res.status === 304 || res.status < 200;
    if (!res.body || empty) {
      done();
      await res.body?.cancel().catch(() => undefined);
      return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      done();
      await res.body.cancel().catch(() => undefined);
      throw new OAuthResponseTooLargeError(url, maxBytes);
    }
    const reader = res.body.getReader();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            done();
            controller.close();
            return;
          }
          seen += chunk.value.byteLength;
          if (seen > maxBytes) {
            done();
            void reader.cancel().catch(() => undefined);
            controller.error(new OAuthResponseTooLargeError(url, maxBytes));
            return;
          }
          controller.enqueue(chunk.value);
        } catch (err) {
          done();
          controller.error(failure(err));
        }
      },
      cancel(reason) {
        done();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
