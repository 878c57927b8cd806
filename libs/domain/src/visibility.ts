/** Who is looking: the platform administrator, or one tenant. A Principal is a Viewer. */
export type Viewer = { type: 'admin' } | { type: 'tenant'; tenantId: string };

/**
 * Who may see a server, the one rule: the administrator every server; a tenant the platform's (no owner) and its
 * own. Every read applies it: the repositories in SQL (visibleSql, the same rule), the tool catalog and search
 * index, and the kept answers. What else narrows a read (a tool not yet approved, say) is a further condition
 * beside it, never a change to it.
 */
export function maySee(viewer: Viewer, ownerTenantId: string | null): boolean {
  return viewer.type === 'admin' || ownerTenantId === null || ownerTenantId === viewer.tenantId;
}

/** The viewer's tenant, as the SQL form of the rule takes it (null: the administrator). */
export function viewerTenant(viewer: Viewer): string | null {
  return viewer.type === 'admin' ? null : viewer.tenantId;
}
