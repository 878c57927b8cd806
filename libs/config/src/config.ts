import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, constants, copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { envSchema } from './config.schema';
import { isPlatformVariable } from './credential-env';

/** Raised for a bad configuration value: the message names the variable and never its value. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface PipedreamConfig {
  clientId: string;
  clientSecret: string;
  projectId: string;
  environment: 'development' | 'production';
  apiUrl: string;
  mcpUrl: string;
}

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL under dataDir. */
  databaseUrl?: string;
  /** The hot statements (a discovery's claim and result) are prepared once per connection (never on the embedded database). */
  databasePreparedStatements: boolean;
  /** Unset: the queue lives in PostgreSQL. */
  redisUrl?: string;
  dataDir: string;
  adminApiKey: string;
  /** Where a generated admin key is kept, for the start banner; undefined when it came from the environment. */
  adminApiKeyFile?: string;
  credentialsKey: { id: string; key: Buffer };
  previousCredentialsKeys: { id: string; key: Buffer }[];
  outboundAllow: string[];
  /** Variables platform servers' credentials may name besides MCP_SECRET_* (CREDENTIAL_ENV_ALLOW). */
  credentialEnvAllow: string[];
  discovery: {
    intervalSeconds: number;
    timeoutMs: number;
    concurrency: number;
    attempts: number;
    /** Discoveries of one tenant's servers at once on one worker; the platform's own servers are not held to it. */
    tenantConcurrency: number;
  };
  /** The platform defaults of the per-tenant limits; a tenant's own values (set by the admin) take their place. */
  tenantLimits: TenantLimits;
  workerEnabled: boolean;
  externalServersFile?: string;
  pipedream?: PipedreamConfig;
  logLevel: string;
  shutdownTimeoutMs: number;
  queuePrefix: string;
  call: { timeoutMs: number; maxTimeoutMs: number; rateLimitPerMinute: number };
  corsOrigins: string[];
  workerMetricsPort?: number;
  /**
   * The registry's external base URL without a trailing slash (PUBLIC_URL, default `http://HOST:PORT`): OAuth's
   * redirect URI is `{publicUrl}/oauth/callback` and its client metadata document `{publicUrl}/oauth/client-metadata.json`.
   */
  publicUrl: string;
  /**
   * How long one request of the upstream OAuth flow (metadata, registration, token, revocation) may take, its
   * answer read included (OAUTH_REQUEST_TIMEOUT_MS, default 10 s); a refresh waiting on another one's row lock
   * gives up after twice that.
   */
  oauthRequestTimeoutMs: number;
  /** Host names /mcp accepts in the Host header besides the loopback ones (DNS rebinding protection). */
  allowedHosts: string[];
  webhooks: WebhookSettings;
}

/** How webhook deliveries are tried (WEBHOOK_*). */
export interface WebhookSettings {
  /** Tries per delivery before it is failed. */
  attempts: number;
  /** The first retry's delay; each later one doubles, up to an hour. */
  backoffMs: number;
  /** One attempt's time limit, the receiver's answer read included. */
  timeoutMs: number;
  /** A webhook is disabled after this many failed attempts in a row... */
  disableAfterFailures: number;
  /** ...when the first of them is at least this long ago. */
  disableAfterSeconds: number;
}

/** What one tenant may hold and do at once. Each has a platform default (below) and may be set per tenant. */
export interface TenantLimits {
  /** Servers the tenant owns (CUSTOM and INTEGRATION). TENANT_MAX_SERVERS. */
  maxServers: number;
  /** Tools stored across the tenant's servers, as discovered. TENANT_MAX_TOOLS. */
  maxTools: number;
  /** Tool calls of the tenant running at once, per API replica. TENANT_MAX_CALLS_IN_FLIGHT. */
  maxCallsInFlight: number;
  /** Bytes one tool call's answer may bring in. TOOL_RESULT_MAX_BYTES. */
  toolResultMaxBytes: number;
  /** Bytes of answers the tenant's calls in flight may hold together, per API replica. TENANT_MAX_RESULT_BYTES_IN_FLIGHT. */
  maxResultBytesInFlight: number;
}

/** The environment variable of each tenant limit's platform default. */
export const TENANT_LIMIT_VARIABLES: Record<keyof TenantLimits, string> = {
  maxServers: 'TENANT_MAX_SERVERS',
  maxTools: 'TENANT_MAX_TOOLS',
  maxCallsInFlight: 'TENANT_MAX_CALLS_IN_FLIGHT',
  toolResultMaxBytes: 'TOOL_RESULT_MAX_BYTES',
  maxResultBytesInFlight: 'TENANT_MAX_RESULT_BYTES_IN_FLIGHT',
};

export const DEFAULT_TENANT_LIMITS: TenantLimits = {
  maxServers: 200,
  maxTools: 5_000,
  maxCallsInFlight: 20,
  toolResultMaxBytes: 4 * 1024 * 1024,
  maxResultBytesInFlight: 32 * 1024 * 1024,
};

export interface LoadConfigOptions {
  /** The role's default for WORKER_ENABLED (true for `npm start`, false for `start:api`). */
  workerDefault?: boolean;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** A short, stable, non-secret identifier of a key, stored beside each ciphertext. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

function readOrCreateSecret(dir: string, file: string, variable: string, make: () => string): { value: string; path: string } {
  const path = join(dir, file);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    // Written whole under a private name, then linked into place: of the processes that start together on
    // one DATA_DIR (an API and its workers), one wins the link and the others read its complete file.
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, make() + '\n', { mode: 0o600 });
    chmodSync(tmp, 0o600);
    try {
      linkSync(tmp, path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        // A filesystem without hard links: an exclusive copy still never replaces another process's key.
        try {
          copyFileSync(tmp, path, constants.COPYFILE_EXCL);
        } catch (copyErr) {
          if ((copyErr as NodeJS.ErrnoException).code !== 'EEXIST') throw copyErr;
        }
      }
    } finally {
      unlinkSync(tmp);
    }
  }
  const value = readFileSync(path, 'utf8').trim();
  if (value.length === 0) throw new ConfigError(`${variable}: the generated key file ${path} is empty`);
  return { value, path };
}

/**
 * Reads and validates the environment once. A bad value throws a ConfigError
 * naming the variable. In development, missing secrets are generated once and
 * kept in DATA_DIR; production refuses to run on generated secrets.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): AppConfig {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`${name}: ${issue.message}`);
  }
  const e = parsed.data;
  const nodeEnv = e.NODE_ENV ?? 'development';
  const production = nodeEnv === 'production';
  const dataDirRaw = e.DATA_DIR ?? './.data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(process.cwd(), dataDirRaw);

  let adminApiKey = e.ADMIN_API_KEY;
  let adminApiKeyFile: string | undefined;
  if (!adminApiKey) {
    if (production) throw new ConfigError('ADMIN_API_KEY: required when NODE_ENV=production');
    const s = readOrCreateSecret(dataDir, 'admin-api-key', 'ADMIN_API_KEY', () => 'mcpr_admin_' + randomBytes(24).toString('base64url'));
    adminApiKey = s.value;
    adminApiKeyFile = s.path;
  }

  let credentialsKeyB64 = e.CREDENTIALS_KEY;
  if (!credentialsKeyB64) {
    if (production) throw new ConfigError('CREDENTIALS_KEY: required when NODE_ENV=production');
    credentialsKeyB64 = readOrCreateSecret(dataDir, 'credentials-key', 'CREDENTIALS_KEY', () => randomBytes(32).toString('base64')).value;
    if (Buffer.from(credentialsKeyB64, 'base64').length !== 32) {
      throw new ConfigError(`CREDENTIALS_KEY: the generated key file in DATA_DIR is damaged`);
    }
  }
  const key = Buffer.from(credentialsKeyB64, 'base64');
  const previousCredentialsKeys = list(e.CREDENTIALS_KEYS_PREVIOUS).map((entry) => {
    const material = entry.includes(':') ? entry.slice(entry.indexOf(':') + 1) : entry;
    const buf = Buffer.from(material, 'base64');
    if (buf.length !== 32) throw new ConfigError('CREDENTIALS_KEYS_PREVIOUS: each key must be 32 bytes, base64-encoded');
    return { id: keyId(buf), key: buf };
  });

  let pipedream: PipedreamConfig | undefined;
  const pdSet = [e.PIPEDREAM_CLIENT_ID, e.PIPEDREAM_CLIENT_SECRET, e.PIPEDREAM_PROJECT_ID];
  if (pdSet.some((v) => v !== undefined)) {
    if (!e.PIPEDREAM_CLIENT_ID) throw new ConfigError('PIPEDREAM_CLIENT_ID: required with the other PIPEDREAM_ variables');
    if (!e.PIPEDREAM_CLIENT_SECRET) {
      throw new ConfigError('PIPEDREAM_CLIENT_SECRET: required with the other PIPEDREAM_ variables');
    }
    if (!e.PIPEDREAM_PROJECT_ID) throw new ConfigError('PIPEDREAM_PROJECT_ID: required with the other PIPEDREAM_ variables');
    pipedream = {
      clientId: e.PIPEDREAM_CLIENT_ID,
      clientSecret: e.PIPEDREAM_CLIENT_SECRET,
      projectId: e.PIPEDREAM_PROJECT_ID,
      environment: e.PIPEDREAM_ENVIRONMENT ?? (production ? 'production' : 'development'),
      apiUrl: (e.PIPEDREAM_API_URL ?? 'https://api.pipedream.com').replace(/\/+$/, ''),
      mcpUrl: (e.PIPEDREAM_MCP_URL ?? 'https://remote.mcp.pipedream.net').replace(/\/+$/, ''),
    };
  }

  const credentialEnvAllow = list(e.CREDENTIAL_ENV_ALLOW);
  const own = credentialEnvAllow.find(isPlatformVariable);
  if (own) throw new ConfigError(`CREDENTIAL_ENV_ALLOW: ${own} is a setting of the registry itself and cannot be given to servers`);

  const callTimeoutMs = e.CALL_TIMEOUT_MS ?? 60_000;
  const concurrency = e.DISCOVERY_CONCURRENCY ?? 16;
  const host = e.HOST ?? '127.0.0.1';
  const port = e.PORT ?? 3000;
  const publicUrl = (e.PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  return {
    nodeEnv,
    port,
    host,
    databaseUrl: e.DATABASE_URL,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS ?? true,
    redisUrl: e.REDIS_URL,
    dataDir,
    adminApiKey,
    adminApiKeyFile,
    credentialsKey: { id: keyId(key), key },
    previousCredentialsKeys,
    outboundAllow: list(e.MCP_OUTBOUND_ALLOW),
    credentialEnvAllow,
    discovery: {
      intervalSeconds: e.DISCOVERY_INTERVAL_SECONDS ?? 3600,
      timeoutMs: e.DISCOVERY_TIMEOUT_MS ?? 30_000,
      concurrency,
      attempts: e.DISCOVERY_ATTEMPTS ?? 3,
      tenantConcurrency: Math.min(concurrency, e.DISCOVERY_TENANT_CONCURRENCY ?? Math.max(1, Math.floor(concurrency / 4))),
    },
    tenantLimits: {
      maxServers: e.TENANT_MAX_SERVERS ?? DEFAULT_TENANT_LIMITS.maxServers,
      maxTools: e.TENANT_MAX_TOOLS ?? DEFAULT_TENANT_LIMITS.maxTools,
      maxCallsInFlight: e.TENANT_MAX_CALLS_IN_FLIGHT ?? DEFAULT_TENANT_LIMITS.maxCallsInFlight,
      toolResultMaxBytes: e.TOOL_RESULT_MAX_BYTES ?? DEFAULT_TENANT_LIMITS.toolResultMaxBytes,
      maxResultBytesInFlight: e.TENANT_MAX_RESULT_BYTES_IN_FLIGHT ?? DEFAULT_TENANT_LIMITS.maxResultBytesInFlight,
    },
    workerEnabled: e.WORKER_ENABLED ?? options.workerDefault ?? true,
    externalServersFile: e.EXTERNAL_SERVERS_FILE,
    pipedream,
    logLevel: e.LOG_LEVEL ?? (nodeEnv === 'test' ? 'warn' : 'info'),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS ?? 25_000,
    queuePrefix: e.QUEUE_PREFIX ?? 'mcpr',
    call: {
      timeoutMs: callTimeoutMs,
      maxTimeoutMs: Math.max(e.CALL_MAX_TIMEOUT_MS ?? 300_000, callTimeoutMs),
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE ?? 600,
    },
    corsOrigins: list(e.CORS_ORIGINS),
    workerMetricsPort: e.WORKER_METRICS_PORT,
    allowedHosts: list(e.ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    publicUrl,
    oauthRequestTimeoutMs: e.OAUTH_REQUEST_TIMEOUT_MS ?? 10_000,
    webhooks: {
      attempts: e.WEBHOOK_ATTEMPTS ?? 10,
      backoffMs: e.WEBHOOK_BACKOFF_MS ?? 10_000,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS ?? 10_000,
      disableAfterFailures: e.WEBHOOK_DISABLE_AFTER_FAILURES ?? 20,
      disableAfterSeconds: e.WEBHOOK_DISABLE_AFTER_SECONDS ?? 86_400,
    },
  };
}
