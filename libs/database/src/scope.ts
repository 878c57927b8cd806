import type { Viewer } from '@app/domain';

/**
 * Whose rows a read may see: the admin every row; a tenant its own rows and the
 * platform's (rows without a tenant). A Principal is a ReadScope.
 */
export type ReadScope = Viewer;

/**
 * maySee() (libs/domain) as an SQL condition: `owner` is the row's tenant column, `viewerTenant` the parameter that
 * holds viewerTenant(viewer) (null for the administrator). The same rule; test/foundation/visibility.int-spec.ts
 * holds them to each other.
 */
export function visibleSql(owner: string, viewerTenant: string): string {
  return `(${viewerTenant}::uuid IS NULL OR ${owner} IS NULL OR ${owner} = ${viewerTenant}::uuid)`;
}

/** The owner_scope column value of a row: names are unique per owner. */
export const PLATFORM_SCOPE = 'platform';

export function ownerScopeOf(tenantId: string | null): string {
  return tenantId ?? PLATFORM_SCOPE;
}
