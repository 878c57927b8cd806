import type { Redactor } from '../connection/redaction';

/** Keeps the last `limit` bytes of a stream (a child's stderr): enough to explain a failure, never unbounded. */
export class StderrTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  constructor(readonly limit = 8 * 1024) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const excess = this.size - this.limit;
      const first = this.chunks[0];
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
        this.dropped += excess;
      }
    }
  }

  /**
   * The kept text, marked when older output was dropped, with `redact` applied. The redactor is told that the
   * text was cut at its start, where a secret written across the cut left only its end.
   */
  text(redact?: Redactor): string {
    const raw = Buffer.concat(this.chunks).toString('utf8');
    const body = redact ? redact(raw, { start: this.dropped > 0 }) : raw;
    return this.dropped > 0 ? `[${this.dropped} earlier bytes dropped]\n${body}` : body;
  }

  get empty(): boolean {
    return this.size === 0;
  }
}
