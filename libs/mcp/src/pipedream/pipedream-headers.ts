import type { PipedreamConfig } from '@app/config';

/** Whose account, in which app, a request to Pipedream's MCP server acts for. */
export interface PipedreamTarget {
  /** The tenant that owns the INTEGRATION server: Pipedream's external user. */
  tenantId: string;
  appSlug: string;
  accountId?: string | null;
}

/**
 * Pipedream's external user id for a tenant. It is the tenant id itself: stable,
 * unique per tenant, and derived only from the server's owner, so one tenant's
 * connected accounts are never reached with another tenant's identity.
 */
export function pipedreamExternalUserId(tenantId: string): string {
  return tenantId;
}

/**
 * The headers Pipedream's remote MCP server reads on every request: the bearer
 * token from the client-credentials endpoint, the project and environment, the
 * external user, the app, and the connected account when one is chosen.
 */
export function pipedreamHeaders(
  config: Pick<PipedreamConfig, 'projectId' | 'environment'>,
  accessToken: string,
  target: PipedreamTarget,
): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${accessToken}`,
    'x-pd-project-id': config.projectId,
    'x-pd-environment': config.environment,
    'x-pd-external-user-id': pipedreamExternalUserId(target.tenantId),
    'x-pd-app-slug': target.appSlug,
  };
  if (target.accountId) headers['x-pd-account-id'] = target.accountId;
  return headers;
}

/** The headers of one request to Pipedream's MCP server, with a current token from the process's shared provider. */
export async function pipedreamRequestHeaders(
  config: PipedreamConfig,
  target: PipedreamTarget,
  tokens: { getToken(): Promise<string> },
): Promise<Record<string, string>> {
  return pipedreamHeaders(config, await tokens.getToken(), target);
}
