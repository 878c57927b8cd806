import { envSchema } from './config.schema';

/**
 * Which environment variables a platform server's credentials (`{env: NAME}`) may name. A server's token is
 * sent to that server, and a tenant calling its tools may get it echoed back: only variables the operator meant
 * for servers qualify, never the registry's own settings.
 */

/** The documented prefix of variables meant as server credentials (`MCP_SECRET_GITHUB_TOKEN`). */
export const CREDENTIAL_ENV_PREFIX = 'MCP_SECRET_';

/** An environment variable name, as a credential reference or an allow-list entry writes it. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The registry's own variables: every setting it reads (its keys, its connection strings, Pipedream's secret)
 * and those of its tests and benchmarks. Never a server's credential, whatever the allow list says.
 */
const PLATFORM_VARIABLES = new Set<string>([
  ...Object.keys(envSchema.shape),
  'TEST_DATABASE_URL',
  'TEST_REDIS_URL',
  'BENCH_DATABASE_URL',
  'BENCH_REDIS_URL',
  'PGPASSWORD',
  'NODE_OPTIONS',
]);

export function isPlatformVariable(name: string): boolean {
  return PLATFORM_VARIABLES.has(name) || PLATFORM_VARIABLES.has(name.toUpperCase());
}

/**
 * Why a server's credentials may not name `name`, or undefined when they may: a name with the prefix
 * MCP_SECRET_, or one the operator listed in CREDENTIAL_ENV_ALLOW; never a variable of the registry itself.
 */
export function credentialEnvRefusal(name: string, allow: readonly string[]): string | undefined {
  if (isPlatformVariable(name)) return `${name} is a setting of the registry itself; a server's credentials cannot name it`;
  if (name.startsWith(CREDENTIAL_ENV_PREFIX) && name.length > CREDENTIAL_ENV_PREFIX.length) return undefined;
  if (allow.includes(name)) return undefined;
  return `${name} is not a variable meant for server credentials: name one that starts with ${CREDENTIAL_ENV_PREFIX}, or list it in CREDENTIAL_ENV_ALLOW`;
}
