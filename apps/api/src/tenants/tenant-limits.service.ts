import { APP_CONFIG, AppConfig, TenantLimits } from '@app/config';
import { TenantRepository } from '@app/database';
import { Inject, Injectable } from '@nestjs/common';

/** How long a tenant's limits are reused before they are read again: a change on another replica applies within this. */
const TTL_MS = 5000;
const MAX_ENTRIES = 10_000;

/**
 * The limits that apply to a tenant (its own, else the platform defaults), for the hot paths that check them on
 * every call. Read from the database at most every few seconds per tenant; a change made through this replica
 * applies at once (forget()).
 */
@Injectable()
export class TenantLimitsService {
  private readonly cache = new Map<string, { limits: TenantLimits; at: number }>();
  private readonly inflight = new Map<string, Promise<TenantLimits>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly tenants: TenantRepository,
  ) {}

  get defaults(): TenantLimits {
    return this.config.tenantLimits;
  }

  async of(tenantId: string): Promise<TenantLimits> {
    const hit = this.cache.get(tenantId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.limits;
    let pending = this.inflight.get(tenantId);
    if (!pending) {
      pending = this.read(tenantId).finally(() => this.inflight.delete(tenantId));
      this.inflight.set(tenantId, pending);
    }
    return pending;
  }

  forget(tenantId: string): void {
    this.cache.delete(tenantId);
  }

  private async read(tenantId: string): Promise<TenantLimits> {
    const own = (await this.tenants.limitsOf([tenantId])).get(tenantId) ?? {};
    const limits = { ...this.config.tenantLimits, ...own };
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(tenantId, { limits, at: Date.now() });
    return limits;
  }
}
