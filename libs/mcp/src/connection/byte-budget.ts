import { AsyncLocalStorage } from 'node:async_hooks';
import { McpFailure, McpFailureCode } from './mcp-failure';

/** Counts bytes as they arrive from a server; throws to stop reading (the answer is then cut off). */
export interface ByteCounter {
  take(n: number): void;
}

const answerCounters = new AsyncLocalStorage<ByteCounter>();

/**
 * Runs `fn` with `counter` counting the bytes of the answers to the requests `fn` sends, as they arrive, on the
 * transports that count them (PooledHttpTransport): a pooled session is shared by many calls, and each call's
 * answer is counted against its own counter.
 */
export function countingAnswers<T>(counter: ByteCounter, fn: () => Promise<T>): Promise<T> {
  return answerCounters.run(counter, fn);
}

/** The counter of the call being sent from here, if any (see countingAnswers). */
export function currentAnswerCounter(): ByteCounter | undefined {
  return answerCounters.getStore();
}

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * How many bytes one exchange with a server may bring in. Counted as the bytes
 * arrive (HTTP bodies, stdout), so a server that floods is cut off before the
 * answer is parsed, not after it was held in memory.
 */
export class ByteBudget {
  private used = 0;
  private exceededAt?: number;
  private released = false;

  constructor(readonly limit: number) {}

  get bytes(): number {
    return this.used;
  }

  get exceeded(): boolean {
    return this.exceededAt !== undefined;
  }

  /** Counts `n` bytes; throws once the limit is passed (and on every call after), unless released. */
  take(n: number): void {
    if (this.released) return;
    this.used += n;
    if (this.used > this.limit) {
      this.exceededAt ??= this.used;
      throw this.failure();
    }
  }

  /**
   * Stops counting: the exchange the budget bounded is over, and its session lives on for something else
   * (a discovery's session kept as the change watcher's).
   */
  release(): void {
    this.released = true;
  }

  failure(): McpFailure {
    return new McpFailure(
      McpFailureCode.LimitExceeded,
      `the server sent more than ${formatBytes(this.limit)} during one discovery, the most the registry reads from one server`,
    );
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** Wraps a fetch so every response body is counted against the budget while it streams in. */
export function countingFetch(base: FetchLike, budget: ByteBudget): FetchLike {
  return async (url, init) => {
    const res = await base(url, init);
    if (!res.body || NULL_BODY_STATUS.has(res.status)) return res;
    const reader = res.body.getReader();
    const counted = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          budget.take(value.byteLength);
          controller.enqueue(value);
        } catch (err) {
          await reader.cancel().catch(() => undefined);
          controller.error(err);
        }
      },
      async cancel(reason) {
        await reader.cancel(reason).catch(() => undefined);
      },
    });
    const wrapped = new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
    // The SDK reads where a response came from to explain refused redirects.
    Object.defineProperty(wrapped, 'url', { value: res.url });
    Object.defineProperty(wrapped, 'redirected', { value: res.redirected });
    return wrapped;
  };
}
