import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './generated/api';

export type Schemas = components['schemas'];
export type Server = Schemas['ServerDto'];
export type Tool = Schemas['ToolDefinitionDto'];
export type DiscoveryRun = Schemas['DiscoveryRunDto'];
export type Problem = Schemas['ProblemDto'];
export type CallToolResult = Schemas['CallToolResultDto'];
export type SearchResult = Schemas['ToolSearchResultDto'];
export type Tenant = Schemas['TenantDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type AuditEvent = Schemas['AuditEventDto'];
export type CreateServer = Schemas['CreateServerDto'];
export type UpdateServer = Schemas['UpdateServerDto'];
export type CatalogEntry = Schemas['CatalogEntryDto'];
export type CatalogSource = Schemas['CatalogSourceDto'];
export type ImportResult = Schemas['ImportResultDto'];
export type Kind = Server['kind'];
export type Status = Server['status'];
export type Transport = Server['transport'];

export const KINDS: Kind[] = [
  'MCP_SERVER_KIND_INTERNAL',
  'MCP_SERVER_KIND_BUILT_IN',
  'MCP_SERVER_KIND_CUSTOM',
  'MCP_SERVER_KIND_EXTERNAL',
  'MCP_SERVER_KIND_INTEGRATION',
];
export const STATUSES: Status[] = [
  'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
  'MCP_SERVER_CONNECTION_STATUS_DISCOVERING',
  'MCP_SERVER_CONNECTION_STATUS_ERROR',
  'MCP_SERVER_CONNECTION_STATUS_DISCONNECTED',
];

/** `MCP_SERVER_KIND_BUILT_IN` → `BUILT_IN`: the short form people read. */
export function shortName(wire: string): string {
  return wire.replace(/^MCP_SERVER_(KIND|CONNECTION_STATUS)_/, '');
}

/** An answer of the API that is not a success, as its problem document says it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
  ) {
    super(problem.detail || problem.title || `The registry answered ${status}`);
  }
  /** The field errors of a 400, by field path (`args.0`, `credentials.bearerToken`). */
  get fieldErrors(): { field: string; message: string }[] {
    return this.problem.errors ?? [];
  }
}

const KEY = 'mcpr.console.apiKey';

/** The API key lives in this tab's sessionStorage only: closing the tab or signing out forgets it. */
export const session = {
  key(): string | null {
    return sessionStorage.getItem(KEY);
  },
  set(key: string): void {
    sessionStorage.setItem(KEY, key);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
};

let onUnauthorized: () => void = () => undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

const auth: Middleware = {
  onRequest({ request }) {
    const key = session.key();
    if (key) request.headers.set('authorization', `Bearer ${key}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401 && session.key()) onUnauthorized();
    return response;
  },
};

/** The typed client: its paths, parameters and bodies come from the API's OpenAPI document. */
export const api = createClient<paths>({ baseUrl: '' });
api.use(auth);

/** Turns an openapi-fetch answer into its data, or throws the problem it carried. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const problem = (error && typeof error === 'object' ? error : { detail: String(error ?? response.statusText) }) as Partial<Problem>;
    throw new ApiError(response.status, problem);
  }
  return data as T;
}

/** Checks a key against the API without keeping it: which role it has, or the API's refusal. */
export async function probeKey(key: string): Promise<'admin' | 'tenant'> {
  const headers = { authorization: `Bearer ${key}` };
  const servers = await fetch('/api/v1/servers?pageSize=1', { headers });
  if (!servers.ok) {
    const problem = (await servers.json().catch(() => ({}))) as Partial<Problem>;
    throw new ApiError(servers.status, problem);
  }
  const tenants = await fetch('/api/v1/tenants?pageSize=1', { headers });
  return tenants.ok ? 'admin' : 'tenant';
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.status})`;
  if (err instanceof Error) return err.message;
  return String(err);
}
