/** Bounds of a server registration; the external servers file is held to the same. */
export const LIMITS = {
  name: 200,
  url: 2048,
  command: 1024,
  args: 100,
  arg: 4096,
  env: 64,
  envValue: 4096,
  headers: 64,
  headerName: 100,
  headerValue: 1024,
  secretHeaderValue: 4096,
  bearerToken: 4096,
  metadata: 64,
  metadataKey: 100,
  metadataValue: 1024,
  appSlug: 100,
  accountId: 100,
  minIntervalSeconds: 10,
  maxIntervalSeconds: 31_536_000,
  /** Registrations in one POST /servers/batch. */
  batch: 500,
} as const;

/** RFC 9110 token characters: what a header name may be made of. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const METADATA_KEY = /^[A-Za-z0-9][A-Za-z0-9._\/-]*$/;

/** Headers a registration may not set among its plain headers, with why. */
export const RESERVED_HEADERS: Record<string, string> = {
  authorization: 'put secrets in credentials (bearerToken or credentials.headers), which are stored encrypted',
  'proxy-authorization': 'put secrets in credentials, which are stored encrypted',
  cookie: 'put secrets in credentials, which are stored encrypted',
  host: 'the platform sets it from the URL',
  'content-length': 'the platform sets it',
  'content-type': 'the MCP transport sets it',
  'transfer-encoding': 'the platform sets it',
  connection: 'the platform sets it',
  'mcp-session-id': 'the MCP transport sets it',
  'mcp-protocol-version': 'the MCP transport sets it',
};

/** Headers credentials may not set (the transport owns them). */
export const RESERVED_SECRET_HEADERS: Record<string, string> = Object.fromEntries(
  Object.entries(RESERVED_HEADERS).filter(([name]) => !['authorization', 'proxy-authorization', 'cookie'].includes(name)),
);
