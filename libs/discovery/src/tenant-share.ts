/**
 * How many of a worker's places (DISCOVERY_CONCURRENCY) one tenant's discoveries may take at once
 * (DISCOVERY_TENANT_CONCURRENCY): a tenant whose servers are slow or never answer holds at most that many, and
 * the other places stay free for everyone else's. Counted per worker process; the platform's own servers are not
 * counted (their discoveries are the operator's to size).
 */
export class TenantShare {
  private readonly running = new Map<string, number>();

  constructor(readonly perTenant: number) {}

  /** Takes a place for one of the tenant's discoveries; false when the tenant already holds its share. */
  tryEnter(tenantId: string): boolean {
    const n = this.running.get(tenantId) ?? 0;
    if (n >= this.perTenant) return false;
    this.running.set(tenantId, n + 1);
    return true;
  }

  leave(tenantId: string): void {
    const n = (this.running.get(tenantId) ?? 1) - 1;
    if (n <= 0) this.running.delete(tenantId);
    else this.running.set(tenantId, n);
  }

  runningOf(tenantId: string): number {
    return this.running.get(tenantId) ?? 0;
  }
}

/** The first wait of a discovery put back because its tenant held its share; doubled each time, up to the cap. */
export const SHARE_RETRY_MS = 250;
export const SHARE_RETRY_MAX_MS = 5000;

/** How long a discovery put back for the `times`-th time in a row waits, with jitter so that a crowd spreads out. */
export function shareRetryMs(times: number, random = Math.random()): number {
  const base = Math.min(SHARE_RETRY_MAX_MS, SHARE_RETRY_MS * 2 ** Math.max(0, times - 1));
  return Math.round(base * (0.75 + random * 0.5));
}
