import { formatMs, oneLine } from '@app/domain';
import { OutboundBlockedError, OutboundPolicy, Redactor } from '@app/mcp';
import { Agent, fetch as undiciFetch } from 'undici';

/** Of the receiver's answer, at most this much is read (for the reason of a failure); the rest is dropped. */
export const MAX_RESPONSE_BYTES = 4096;
/** How much of a failed answer's body the recorded reason quotes. */
const QUOTED = 200;

/** How one attempt went. */
export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** Not worth another attempt: the outbound address policy refused the URL or its address. */
  permanent: boolean;
}

/** Reads at most `max` bytes of a body as text, then lets the rest go; `cut`: there was more. */
async function readBounded(body: ReadableStream<Uint8Array> | null, max: number): Promise<{ text: string; cut: boolean }> {
  if (!body) return { text: '', cut: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  try {
    while (size < max) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return { text: Buffer.concat(chunks).subarray(0, max).toString('utf8'), cut: !ended && size >= max };
}

/**
 * One HTTP POST of a delivery to its receiver, through the outbound address policy: the URL checked, the host
 * resolved through the policy's lookup at connect time (the address checked is the address connected to),
 * redirects not followed, the whole exchange within `timeoutMs`, at most MAX_RESPONSE_BYTES of the answer read.
 * A receiver's answer is text it chose: quoted bounded, on one line, with `redact` applied.
 */
export class WebhookSender {
  private readonly dispatcher: Agent;

  constructor(
    private readonly policy: OutboundPolicy,
    private readonly timeoutMs: number,
  ) {
    this.dispatcher = new Agent({ connect: { lookup: policy.connectLookup(), timeout: timeoutMs }, keepAliveTimeout: 4000 });
  }

  async send(url: string, headers: Record<string, string>, body: string, redact: Redactor = (t) => t): Promise<SendResult> {
    const started = Date.now();
    const done = (r: Omit<SendResult, 'durationMs' | 'permanent'> & { permanent?: boolean }): SendResult => ({ permanent: false, ...r, durationMs: Date.now() - started });
    try {
      this.policy.checkUrl(url);
    } catch (err) {
      if (err instanceof OutboundBlockedError) return done({ ok: false, statusCode: null, error: `refused by the outbound address policy: ${err.message}`, permanent: true });
      throw err;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      const res = await undiciFetch(url, { method: 'POST', headers, body, redirect: 'manual', dispatcher: this.dispatcher, signal: abort.signal });
      const answer = await readBounded(res.body as ReadableStream<Uint8Array> | null, MAX_RESPONSE_BYTES);
      if (res.status >= 200 && res.status < 300) return done({ ok: true, statusCode: res.status, error: null });
      // A secret the receiver echoed across the bound leaves its beginning at the end of what was read.
      const quoted = oneLine(redact(answer.text, { end: answer.cut }), QUOTED);
      const redirect = res.status >= 300 && res.status < 400 ? ' (redirects are not followed: give the final URL)' : '';
      return done({ ok: false, statusCode: res.status, error: `the receiver answered ${res.status}${redirect}${quoted ? `: ${quoted}` : ''}` });
    } catch (err) {
      return done(this.failure(err, abort.signal.aborted));
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(err: unknown, timedOut: boolean): Omit<SendResult, 'durationMs'> {
    if (timedOut) return { ok: false, statusCode: null, error: `the receiver did not answer within ${formatMs(this.timeoutMs)}`, permanent: false };
    const cause = (err as { cause?: unknown }).cause ?? err;
    if (cause instanceof OutboundBlockedError) return { ok: false, statusCode: null, error: `refused by the outbound address policy: ${cause.message}`, permanent: true };
    const code = (cause as NodeJS.ErrnoException).code;
    const what =
      code === 'ECONNREFUSED'
        ? 'the receiver refused the connection (ECONNREFUSED)'
        : code === 'ENOTFOUND'
          ? 'the receiver\'s host does not resolve (ENOTFOUND)'
          : `the request failed: ${oneLine(code ?? (cause as Error).message ?? String(cause), 200)}`;
    return { ok: false, statusCode: null, error: what, permanent: false };
  }

  async close(): Promise<void> {
    await this.dispatcher.close().catch(() => undefined);
  }
}
