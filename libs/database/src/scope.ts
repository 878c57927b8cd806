/**
 * Whose rows a read may see: the admin every row; a tenant its own rows and the
 * platform's (rows without a tenant). A Principal is a ReadScope.
 */
export type ReadScope = { type: 'admin' } | { type: 'tenant'; tenantId: string };

/** The owner_scope column value of a row: names are unique per owner. */
export const PLATFORM_SCOPE = 'platform';

export function ownerScopeOf(tenantId: string | null): string {
  return tenantId ?? PLATFORM_SCOPE;
}
