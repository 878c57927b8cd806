/**
 * The one bound of a process's stop (SHUTDOWN_TIMEOUT_MS), counted from the moment the stop begins: running
 * jobs, tool calls in flight and requests being answered all finish within it, together rather than one after
 * the other, so that a process running both roles stops within the same bound as one running either.
 */
export class ShutdownClock {
  private deadline?: number;

  constructor(readonly boundMs: number) {}

  /** The stop begins now (later calls keep the first moment). */
  begin(): void {
    this.deadline ??= Date.now() + this.boundMs;
  }

  get stopping(): boolean {
    return this.deadline !== undefined;
  }

  /** What is left of the bound: all of it before the stop begins, never less than 0. */
  remainingMs(): number {
    return this.deadline === undefined ? this.boundMs : Math.max(0, this.deadline - Date.now());
  }
}
