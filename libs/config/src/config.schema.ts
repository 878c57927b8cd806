import { isIP } from 'node:net';
import { z } from 'zod';

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => ['true', 'false', '1', '0', 'yes', 'no'].includes(v), 'must be true or false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** A string that parses as a URL that `accepts` takes; anything else fails with `message`. */
const urlWhere = (accepts: (u: URL) => boolean, message: string) =>
  z
    .string()
    .trim()
    .refine((v) => {
      try {
        return accepts(new URL(v));
      } catch {
        return false;
      }
    }, message);

const postgresUrl = urlWhere(
  (u) => (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname.length > 0,
  'must be a postgres:// or postgresql:// URL with a host',
);

const redisUrl = urlWhere((u) => (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname.length > 0, 'must be a redis:// or rediss:// URL with a host');

const httpUrl = urlWhere((u) => u.protocol === 'http:' || u.protocol === 'https:', 'must be an http(s) URL');

/** The registry's external base URL: an origin with an optional path, no query, fragment or credentials. */
const publicUrl = urlWhere(
  (u) => (u.protocol === 'http:' || u.protocol === 'https:') && !u.search && !u.hash && !u.username && !u.password,
  'must be an http(s) URL without query, fragment, user name or password',
);

const base64Key = z
  .string()
  .trim()
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

/** One MCP_OUTBOUND_ALLOW entry: a host name, `*.suffix`, an IP address (IPv6 with or without brackets) or a CIDR. */
function outboundAllowEntry(entry: string): boolean {
  if (entry === '') return true;
  const [addr, prefix, ...rest] = entry.split('/');
  const ip = addr.replace(/^\[(.*)\]$/, '$1');
  if (prefix !== undefined) {
    const family = isIP(ip);
    return rest.length === 0 && family !== 0 && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  }
  return isIP(ip) !== 0 || /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry);
}

/** The environment as the process reads it. Every variable is optional here; defaults come after. */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).optional(),
  PORT: int(0, 65535).optional(),
  HOST: z.string().trim().min(1).optional(),
  DATABASE_URL: postgresUrl.optional(),
  /** Hot statements are prepared once per connection; false behind a proxy that cannot keep them (old PgBouncer). */
  DATABASE_PREPARED_STATEMENTS: bool.optional(),
  REDIS_URL: redisUrl.optional(),
  DATA_DIR: z.string().trim().min(1).optional(),
  ADMIN_API_KEY: z.string().trim().min(24, 'must be at least 24 characters').optional(),
  CREDENTIALS_KEY: base64Key.optional(),
  /** Older keys kept for decryption after a rotation: `id:base64,id:base64`. */
  CREDENTIALS_KEYS_PREVIOUS: z.string().trim().optional(),
  /** Hosts, `*.suffixes`, addresses and CIDRs tenant servers may reach: comma-separated. */
  MCP_OUTBOUND_ALLOW: z
    .string()
    .refine((v) => v.split(',').every((e) => outboundAllowEntry(e.trim())), 'must be a comma-separated list of host names, *.suffixes, IP addresses and CIDRs (10.0.0.0/8, fd00::/8)')
    .optional(),
  /** Environment variables (besides MCP_SECRET_*) that platform servers' credentials may name: comma-separated. */
  CREDENTIAL_ENV_ALLOW: z
    .string()
    .refine((v) => v.split(',').every((n) => n.trim() === '' || /^[A-Za-z_][A-Za-z0-9_]*$/.test(n.trim())), 'must be a comma-separated list of environment variable names')
    .optional(),
  DISCOVERY_INTERVAL_SECONDS: int(10, 31_536_000).optional(),
  DISCOVERY_TIMEOUT_MS: int(100, 3_600_000).optional(),
  DISCOVERY_CONCURRENCY: int(1, 1000).optional(),
  DISCOVERY_ATTEMPTS: int(1, 20).optional(),
  WORKER_ENABLED: bool.optional(),
  EXTERNAL_SERVERS_FILE: z.string().trim().min(1).optional(),
  PIPEDREAM_CLIENT_ID: z.string().trim().min(1).optional(),
  PIPEDREAM_CLIENT_SECRET: z.string().trim().min(1).optional(),
  PIPEDREAM_PROJECT_ID: z.string().trim().min(1).optional(),
  PIPEDREAM_ENVIRONMENT: z.enum(['development', 'production']).optional(),
  PIPEDREAM_API_URL: httpUrl.optional(),
  PIPEDREAM_MCP_URL: httpUrl.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).optional(),
  QUEUE_PREFIX: z
    .string()
    .trim()
    .regex(/^[a-zA-Z0-9_-]{1,40}$/, 'letters, digits, - and _ only')
    .optional(),
  CALL_TIMEOUT_MS: int(100, 3_600_000).optional(),
  CALL_MAX_TIMEOUT_MS: int(100, 3_600_000).optional(),
  RATE_LIMIT_PER_MINUTE: int(0, 1_000_000).optional(),
  /** Platform defaults of the per-tenant limits (the admin sets a tenant's own with PATCH /api/v1/tenants/{id}). */
  TENANT_MAX_SERVERS: int(0, 1_000_000).optional(),
  TENANT_MAX_TOOLS: int(0, 10_000_000).optional(),
  TENANT_MAX_CALLS_IN_FLIGHT: int(1, 100_000).optional(),
  TOOL_RESULT_MAX_BYTES: int(1024, 1_073_741_824).optional(),
  TENANT_MAX_RESULT_BYTES_IN_FLIGHT: int(1024, 17_179_869_184).optional(),
  /** Discoveries of one tenant's servers a worker runs at once (its share of DISCOVERY_CONCURRENCY). */
  DISCOVERY_TENANT_CONCURRENCY: int(1, 1000).optional(),
  CORS_ORIGINS: z.string().optional(),
  /** A worker process serves /metrics and /health/live on this port (unset: no HTTP). */
  WORKER_METRICS_PORT: int(1, 65535).optional(),
  /** The registry's external base URL (OAuth redirects, its client metadata document). */
  PUBLIC_URL: publicUrl.optional(),
  /** How long one request to an upstream authorization server may take (metadata, registration, token, revocation). */
  OAUTH_REQUEST_TIMEOUT_MS: int(100, 600_000).optional(),
  /** Tries per webhook delivery, the first retry's delay (doubling up to an hour), one attempt's time limit. */
  WEBHOOK_ATTEMPTS: int(1, 50).optional(),
  WEBHOOK_BACKOFF_MS: int(10, 3_600_000).optional(),
  WEBHOOK_TIMEOUT_MS: int(100, 120_000).optional(),
  /** A webhook is disabled after this many failed attempts in a row that span at least WEBHOOK_DISABLE_AFTER_SECONDS. */
  WEBHOOK_DISABLE_AFTER_FAILURES: int(1, 1_000_000).optional(),
  WEBHOOK_DISABLE_AFTER_SECONDS: int(0, 31_536_000).optional(),
  /** Host names (besides the loopback ones) that requests to /mcp may name in their Host header. */
  ALLOWED_HOSTS: z
    .string()
    .refine((v) => v.split(',').every((h) => /^[a-z0-9.:[\]-]*$/i.test(h.trim())), 'must be a comma-separated list of host names')
    .optional(),
});

export type RawEnv = z.infer<typeof envSchema>;
