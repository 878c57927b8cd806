/** Optional override of the listing bounds (pages, tools, bytes): a Partial<ListingLimits>. */
export const DISCOVERY_LIMITS = Symbol('DISCOVERY_LIMITS');
