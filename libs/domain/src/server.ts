import { ServerKind, ServerStatus, TransportType } from './enums';

/** An MCP tool as discovered, every field the server sent of those MCP defines: what the registry hands to models. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  icons?: unknown[];
  /** How the tool runs (`taskSupport`: forbidden, optional, required). */
  execution?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** The fields of a ToolDefinition, in the order the registry writes them: what a tool's hash is taken over. */
export const TOOL_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'icons', 'execution', '_meta'] as const;

/**
 * Which tool definitions of a server are served: `open`, each as discovered; `pinned`, those of the first
 * discovery, and later new or changed ones once approved; `approval`, each once approved.
 */
export type ToolPolicy = 'open' | 'pinned' | 'approval';
export const TOOL_POLICIES: readonly ToolPolicy[] = ['open', 'pinned', 'approval'];

/** The `_meta` key that marks a definition a server's owner overrode, with the fields overridden. */
export const OVERRIDE_META_KEY = 'dev.mcp-registry/override';

/** Write-only credentials of a server. Never returned, logged, queued or put in an error. */
export interface ServerCredentials {
  bearerToken?: string;
  headers?: Record<string, string>;
}

/** Where a server stands with upstream OAuth: none needed, needed and missing, held, or refused on refresh. */
/**
 * A server's secret material as it is stored, for the connector only: the sealed credentials
 * (CredentialsCipher, bound to the server's id), or for BUILT_IN/EXTERNAL the name of the environment variable
 * that holds them.
 */
export interface StoredCredentials {
  credentialsCipher: string | null;
  credentialsEnv: string | null;
}

export type AuthorizationStatus = 'none' | 'required' | 'authorized' | 'expired';

/** A server's upstream authorization as its view shows it: never a token. */
export interface ServerAuthorizationView {
  status: AuthorizationStatus;
  /** The authorization server (its issuer identifier). */
  issuer?: string;
  /** The scopes asked for (required) or granted (authorized). */
  scopes?: string[];
  /** When the access token held expires (ISO 8601). */
  expiresAt?: string;
}

export type OAuthGrant = 'authorization_code' | 'client_credentials';

/** The registration's `auth`, less its secret: a pre-registered client, scopes to ask for, the grant. */
export interface ServerAuthConfig {
  clientId?: string;
  scopes?: string[];
  grant?: OAuthGrant;
  hasClientSecret: boolean;
}

/** A registered server as the registry keeps it (credentials only as a presence flag). */
export interface ServerRecord {
  id: string;
  tenantId: string | null;
  name: string;
  kind: ServerKind;
  transport: TransportType;
  url: string | null;
  command: string | null;
  args: string[];
  env: Record<string, string>;
  headers: Record<string, string>;
  hasCredentials: boolean;
  /** BUILT_IN: the environment variable holding the platform's token. */
  credentialsEnv: string | null;
  enabled: boolean;
  metadata: Record<string, string>;
  discoveryIntervalSeconds: number | null;
  appSlug: string | null;
  accountId: string | null;
  status: ServerStatus;
  statusReason: string | null;
  serverName: string | null;
  serverTitle: string | null;
  serverVersion: string | null;
  protocolVersion: string | null;
  instructions: string | null;
  capabilities: Record<string, unknown> | null;
  toolCount: number;
  resourceCount: number | null;
  promptCount: number | null;
  /** Resource templates as last discovered; null when the server declares no resources (or the list failed). */
  resourceTemplateCount: number | null;
  /** Why a declared list was not read whole, by its method (`resources/list`, …); null when every one was. */
  listingErrors: Record<string, string> | null;
  discoveryRequestedAt: Date | null;
  lastDiscoveredAt: Date | null;
  nextDiscoveryAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** The registration's `auth` (null: none given). */
  auth?: ServerAuthConfig | null;
  /** Upstream OAuth as the view shows it (absent: none). */
  authorization?: ServerAuthorizationView;
  toolPolicy: ToolPolicy;
  /** Tool definitions waiting for a decision. */
  pendingToolChanges: number;
}

/** Who is asking: the platform administrator, or one tenant. Every read and write is scoped by it. */
export type Principal = { type: 'admin'; keyId: 'admin' } | { type: 'tenant'; tenantId: string; keyId: string };

export function isAdmin(p: Principal): p is { type: 'admin'; keyId: 'admin' } {
  return p.type === 'admin';
}
