import { credentialEnvRefusal } from '@app/config';
import {
  FieldError,
  ForbiddenError,
  InvalidInputError,
  parseKind,
  Principal,
  ServerCredentials,
  ServerKind,
  ServerRecord,
  TransportType,
} from '@app/domain';

/** The refusal for any write to an INTERNAL server. */
export const INTERNAL_REFUSAL =
  'INTERNAL servers are compiled into the deployment and registered at start; they cannot be created, changed or deleted through the API';

/** The refusal for any write to an EXTERNAL server. */
export const EXTERNAL_REFUSAL =
  'EXTERNAL servers are legacy registrations configured outside the API (EXTERNAL_SERVERS_FILE) and are read-only here; ' +
  'this category does not designate a new tenant registration';

export const BUILT_IN_REFUSAL = "only the platform administrator registers or changes BUILT_IN servers (the platform's catalog)";

export const INTEGRATION_VIA_ENDPOINT = 'INTEGRATION servers are connected with POST /api/v1/integrations';

export const LOCAL_TRANSPORT_REFUSAL =
  "would run a program on the platform's hosts; servers registered for a tenant must be remote (streamable-http or sse)";

const REMOTE = new Set<TransportType>([TransportType.STREAMABLE_HTTP, TransportType.SSE]);

export function isRemote(transport: TransportType): boolean {
  return REMOTE.has(transport);
}

/** Credentials as a registration gives them: secrets to encrypt, or (BUILT_IN) a reference to the platform's environment. */
export interface CredentialsInput {
  bearerToken?: string;
  headers?: Record<string, string>;
  env?: string;
}

export interface ConnectionFields {
  transport: TransportType;
  url: string | null;
  command: string | null;
  args: string[];
  env: Record<string, string>;
}

function invalid(errors: FieldError[]): InvalidInputError {
  return new InvalidInputError(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

/** Throws one 400 naming every field at fault, if any is. */
export function assertNoFieldErrors(errors: FieldError[]): void {
  if (errors.length > 0) throw invalid(errors);
}

/**
 * Which kind a registration through POST /servers makes, and for which owner.
 * A tenant registers CUSTOM servers for itself; the admin registers BUILT_IN
 * servers, or CUSTOM servers on behalf of a tenant named by `tenantId`.
 */
export function resolveCreateTarget(
  principal: Principal,
  kindInput: string | number | undefined,
  tenantIdInput: string | undefined,
): { kind: ServerKind; tenantId: string | null } {
  const requested = kindInput === undefined ? undefined : parseKind(kindInput);
  if (kindInput !== undefined && requested === undefined) throw invalid([{ field: 'kind', message: 'is not a server kind' }]);
  if (requested === ServerKind.INTERNAL) throw new ForbiddenError(INTERNAL_REFUSAL);
  if (requested === ServerKind.EXTERNAL) throw new ForbiddenError(EXTERNAL_REFUSAL);
  if (requested === ServerKind.INTEGRATION) throw invalid([{ field: 'kind', message: INTEGRATION_VIA_ENDPOINT }]);

  if (principal.type === 'tenant') {
    if (requested === ServerKind.BUILT_IN) throw new ForbiddenError(BUILT_IN_REFUSAL);
    if (tenantIdInput !== undefined) {
      throw new ForbiddenError('only the platform administrator registers servers on behalf of a tenant; your servers are your own');
    }
    return { kind: ServerKind.CUSTOM, tenantId: principal.tenantId };
  }
  const kind = requested ?? (tenantIdInput !== undefined ? ServerKind.CUSTOM : ServerKind.BUILT_IN);
  if (kind === ServerKind.BUILT_IN) {
    if (tenantIdInput !== undefined) throw invalid([{ field: 'tenantId', message: 'BUILT_IN servers belong to the platform, not to a tenant' }]);
    return { kind, tenantId: null };
  }
  if (tenantIdInput === undefined) {
    throw invalid([{ field: 'tenantId', message: 'is required when the administrator registers a CUSTOM server (the tenant it is for)' }]);
  }
  // One spelling of the id, so that names stay unique per owner whatever case the id was written in.
  return { kind, tenantId: tenantIdInput.toLowerCase() };
}

/** Whether the transport suits the kind, and the URL or command suits the transport. */
export function connectionErrors(kind: ServerKind, c: ConnectionFields): FieldError[] {
  const errors: FieldError[] = [];
  const tenantOwned = kind === ServerKind.CUSTOM || kind === ServerKind.INTEGRATION;
  if (tenantOwned && !isRemote(c.transport)) {
    errors.push({ field: 'transport', message: `${c.transport} ${LOCAL_TRANSPORT_REFUSAL}` });
    return errors;
  }
  if (c.transport === TransportType.IN_PROCESS && kind !== ServerKind.INTERNAL) {
    errors.push({ field: 'transport', message: 'in-process servers are compiled into the deployment (INTERNAL); register a remote or stdio server' });
    return errors;
  }
  if (isRemote(c.transport)) {
    if (!c.url) errors.push({ field: 'url', message: `is required for the ${c.transport} transport` });
    if (c.command) errors.push({ field: 'command', message: `is only for the stdio transport` });
    if (c.args.length > 0) errors.push({ field: 'args', message: `are only for the stdio transport` });
    if (Object.keys(c.env).length > 0) errors.push({ field: 'env', message: `is only for the stdio transport` });
  } else if (c.transport === TransportType.STDIO) {
    if (!c.command) errors.push({ field: 'command', message: 'is required for the stdio transport' });
    if (c.url) errors.push({ field: 'url', message: 'is not used by the stdio transport' });
  }
  return errors;
}

/** Whether credentials suit the kind: only the platform's servers may point at the platform's environment. */
/**
 * What is wrong with the credentials of a registration. `envAllow` is CREDENTIAL_ENV_ALLOW: an `{env: NAME}`
 * reference must name a variable meant for server credentials (MCP_SECRET_*, or listed there), never one of the
 * registry's own settings.
 */
export function credentialsErrors(kind: ServerKind, creds: CredentialsInput | null | undefined, envAllow: readonly string[]): FieldError[] {
  if (!creds) return [];
  const errors: FieldError[] = [];
  const secrets = creds.bearerToken !== undefined || creds.headers !== undefined;
  if (creds.env !== undefined) {
    const refusal = credentialEnvRefusal(creds.env, envAllow);
    if (kind !== ServerKind.BUILT_IN && kind !== ServerKind.EXTERNAL) {
      errors.push({ field: 'credentials.env', message: "only BUILT_IN servers may refer to the platform's environment" });
    } else if (secrets) {
      errors.push({ field: 'credentials', message: 'give either env or bearerToken/headers, not both' });
    } else if (refusal) {
      errors.push({ field: 'credentials.env', message: refusal });
    }
  }
  if (creds.bearerToken !== undefined && creds.headers && Object.keys(creds.headers).some((h) => h.toLowerCase() === 'authorization')) {
    errors.push({ field: 'credentials.headers', message: 'must not set Authorization when bearerToken is given' });
  }
  if (creds.env === undefined && !secrets) errors.push({ field: 'credentials', message: 'must hold bearerToken, headers or env (or be null to remove them)' });
  return errors;
}

/** The registration's `auth` as given (see AuthDto). */
export interface AuthInput {
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  grant?: 'authorization_code' | 'client_credentials';
}

/** Upstream OAuth is for remote CUSTOM and BUILT_IN servers; the client credentials grant needs a client and its secret. */
export function authErrors(kind: ServerKind, transport: string, auth: AuthInput | null | undefined): FieldError[] {
  if (!auth) return [];
  const errors: FieldError[] = [];
  if (kind !== ServerKind.CUSTOM && kind !== ServerKind.BUILT_IN) errors.push({ field: 'auth', message: 'only CUSTOM and BUILT_IN servers use upstream OAuth' });
  if (transport !== 'streamable-http' && transport !== 'sse') errors.push({ field: 'auth', message: 'only remote servers (streamable-http, sse) use upstream OAuth' });
  if (auth.clientSecret !== undefined && auth.clientId === undefined) errors.push({ field: 'auth.clientSecret', message: 'needs auth.clientId' });
  if (auth.grant === 'client_credentials') {
    if (auth.clientId === undefined) errors.push({ field: 'auth.clientId', message: 'the client_credentials grant needs a pre-registered client' });
    if (auth.clientSecret === undefined) errors.push({ field: 'auth.clientSecret', message: 'the client_credentials grant needs the client secret' });
  }
  return errors;
}

/** Splits `auth` into what is stored as it is and the secret to encrypt. */
export function splitAuth(auth: AuthInput): { config: { clientId?: string; scopes?: string[]; grant?: string }; secret: string | null } {
  return {
    config: {
      ...(auth.clientId !== undefined ? { clientId: auth.clientId } : {}),
      ...(auth.scopes !== undefined ? { scopes: [...new Set(auth.scopes)] } : {}),
      ...(auth.grant !== undefined ? { grant: auth.grant } : {}),
    },
    secret: auth.clientSecret ?? null,
  };
}

/** Splits credentials into what is encrypted and what is kept as an environment reference. */
export function splitCredentials(creds: CredentialsInput): { secret: ServerCredentials | null; env: string | null } {
  if (creds.env !== undefined) return { secret: null, env: creds.env };
  const secret: ServerCredentials = {};
  if (creds.bearerToken !== undefined) secret.bearerToken = creds.bearerToken;
  if (creds.headers !== undefined) secret.headers = { ...creds.headers };
  return { secret, env: null };
}

/** Who may change or delete a server the caller can see. */
export function assertWritable(principal: Principal, server: ServerRecord): void {
  if (server.kind === ServerKind.INTERNAL) throw new ForbiddenError(INTERNAL_REFUSAL);
  if (server.kind === ServerKind.EXTERNAL) throw new ForbiddenError(EXTERNAL_REFUSAL);
  if (server.kind === ServerKind.BUILT_IN && principal.type !== 'admin') throw new ForbiddenError(BUILT_IN_REFUSAL);
}

/** Owner-or-admin actions on a visible server (manual discovery, discovery history): platform servers are the admin's. */
export function assertOwnerOrAdmin(principal: Principal, server: ServerRecord, action: string): void {
  if (principal.type === 'admin') return;
  if (server.tenantId !== principal.tenantId) {
    throw new ForbiddenError(`only the platform administrator may ${action} of the platform's ${server.kind} servers`);
  }
}

/** What an INTEGRATION server lets its owner change: Pipedream decides how it is reached. */
export const INTEGRATION_MUTABLE = new Set(['name', 'enabled', 'metadata', 'discoveryIntervalSeconds', 'toolPolicy']);
