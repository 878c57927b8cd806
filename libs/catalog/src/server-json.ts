/** server.json (schema 2025-12-11), the fields the platform reads; everything else is kept as given. */
export interface ServerJsonInput {
  description?: string;
  isRequired?: boolean;
  format?: 'string' | 'number' | 'boolean' | 'filepath';
  value?: string;
  isSecret?: boolean;
  default?: string;
  placeholder?: string;
  choices?: string[];
  variables?: Record<string, ServerJsonInput>;
}

export interface ServerJsonKeyValueInput extends ServerJsonInput {
  name: string;
}

export interface ServerJsonArgument extends ServerJsonInput {
  type: 'positional' | 'named';
  name?: string;
  valueHint?: string;
  isRepeated?: boolean;
}

export interface ServerJsonTransport {
  type: 'stdio' | 'streamable-http' | 'sse';
  url?: string;
  headers?: ServerJsonKeyValueInput[];
  variables?: Record<string, ServerJsonInput>;
}

export interface ServerJsonPackage {
  registryType: string;
  registryBaseUrl?: string;
  identifier: string;
  version?: string;
  fileSha256?: string;
  runtimeHint?: string;
  transport: ServerJsonTransport;
  runtimeArguments?: ServerJsonArgument[];
  packageArguments?: ServerJsonArgument[];
  environmentVariables?: ServerJsonKeyValueInput[];
}

export interface ServerJson {
  $schema?: string;
  name: string;
  description: string;
  version: string;
  title?: string;
  websiteUrl?: string;
  repository?: { url: string; source: string; id?: string; subfolder?: string };
  icons?: { src: string; mimeType?: string; sizes?: string[]; theme?: string }[];
  packages?: ServerJsonPackage[];
  remotes?: ServerJsonTransport[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export const SERVER_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/** The official registry's own `_meta` namespace in Registry API answers. */
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';
/** Ours: what discovery found for an entry instantiated as a server, or for a server of our own. */
export const DISCOVERY_META = 'dev.mcp-registry/discovery';

export type CatalogStatus = 'active' | 'deprecated' | 'deleted';
export const CATALOG_STATUSES: readonly CatalogStatus[] = ['active', 'deprecated', 'deleted'];
