import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, keyId, loadConfig } from './config';

describe('loadConfig', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mcpr-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const load = (env: Record<string, string>, workerDefault?: boolean) =>
    loadConfig({ DATA_DIR: dataDir, ...env }, workerDefault === undefined ? {} : { workerDefault });

  /** The ConfigError a bad environment raises (fails the test when none is raised). */
  const errorOf = (env: Record<string, string>): ConfigError => {
    try {
      load(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return err as ConfigError;
    }
    throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
  };

  it('runs with no variables at all: embedded database, queue in the database, documented defaults', () => {
    const c = load({});
    expect(c).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      databasePreparedStatements: true,
      redisUrl: undefined,
      dataDir,
      workerEnabled: true,
      logLevel: 'info',
      queuePrefix: 'mcpr',
      outboundAllow: [],
      credentialEnvAllow: [],
      discovery: { intervalSeconds: 3600, timeoutMs: 30_000, concurrency: 16, attempts: 3 },
    });
    expect(c.pipedream).toBeUndefined();
  });

  it('generates the admin key and the credentials key once, owner-only, and reads them back', () => {
    const first = load({});
    const keyFile = join(dataDir, 'admin-api-key');
    expect(first.adminApiKeyFile).toBe(keyFile);
    expect(first.adminApiKey).toMatch(/^mcpr_admin_[A-Za-z0-9_-]{32}$/);
    expect(first.credentialsKey.key).toHaveLength(32);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'credentials-key')).mode & 0o777).toBe(0o600);

    const second = load({});
    expect(second.adminApiKey).toBe(first.adminApiKey);
    expect(second.credentialsKey.key.equals(first.credentialsKey.key)).toBe(true);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(first.adminApiKey);
  });

  it('takes the secrets from the environment without writing files', () => {
    const key = randomBytes(32);
    const c = load({ ADMIN_API_KEY: 'a'.repeat(32), CREDENTIALS_KEY: key.toString('base64') });
    expect(c.adminApiKey).toBe('a'.repeat(32));
    expect(c.adminApiKeyFile).toBeUndefined();
    expect(c.credentialsKey).toEqual({ id: keyId(key), key });
    expect(existsSync(join(dataDir, 'admin-api-key'))).toBe(false);
    expect(existsSync(join(dataDir, 'credentials-key'))).toBe(false);
  });

  it('refuses generated secrets in production, naming the missing variable', () => {
    expect(errorOf({ NODE_ENV: 'production' }).message).toBe('ADMIN_API_KEY: required when NODE_ENV=production');
    expect(errorOf({ NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(32) }).message).toBe(
      'CREDENTIALS_KEY: required when NODE_ENV=production',
    );
    expect(existsSync(join(dataDir, 'admin-api-key'))).toBe(false);
    const c = load({
      NODE_ENV: 'production',
      ADMIN_API_KEY: 'k'.repeat(32),
      CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    });
    expect(c.nodeEnv).toBe('production');
  });

  it.each([
    ['PORT', 'abc', 'PORT: must be a whole number'],
    ['PORT', '-1', 'PORT: must be a whole number'],
    ['PORT', '70000', 'PORT: must be at most 65535'],
    ['PORT', '3000.5', 'PORT: must be a whole number'],
    ['DATABASE_URL', 'not a url', 'DATABASE_URL: must be a postgres:// or postgresql:// URL with a host'],
    ['DATABASE_URL', 'mysql://user:hunter2secret@db/registry', 'DATABASE_URL: must be a postgres:// or postgresql:// URL with a host'],
    ['REDIS_URL', 'http://127.0.0.1:6379', 'REDIS_URL: must be a redis:// or rediss:// URL with a host'],
    ['NODE_ENV', 'staging', 'NODE_ENV:'],
    ['WORKER_ENABLED', 'maybe', 'WORKER_ENABLED: must be true or false'],
    ['ADMIN_API_KEY', 'short', 'ADMIN_API_KEY: must be at least 24 characters'],
    ['CREDENTIALS_KEY', Buffer.from('sixteen byte key').toString('base64'), 'CREDENTIALS_KEY: must be 32 bytes, base64-encoded'],
    ['DISCOVERY_INTERVAL_SECONDS', '5', 'DISCOVERY_INTERVAL_SECONDS: must be at least 10'],
    ['DISCOVERY_CONCURRENCY', '0', 'DISCOVERY_CONCURRENCY: must be at least 1'],
    ['DISCOVERY_ATTEMPTS', '21', 'DISCOVERY_ATTEMPTS: must be at most 20'],
    ['DISCOVERY_TIMEOUT_MS', 'soon', 'DISCOVERY_TIMEOUT_MS: must be a whole number'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL:'],
    ['QUEUE_PREFIX', 'a:b', 'QUEUE_PREFIX: letters, digits, - and _ only'],
    ['PIPEDREAM_API_URL', 'ftp://x', 'PIPEDREAM_API_URL: must be an http(s) URL'],
    ['ALLOWED_HOSTS', 'https://registry.example.com/', 'ALLOWED_HOSTS: must be a comma-separated list of host names'],
    ['PUBLIC_URL', 'registry.example.com', 'PUBLIC_URL: must be an http(s) URL without query, fragment, user name or password'],
    ['PUBLIC_URL', 'https://user:pw5ecret@registry.example.com', 'PUBLIC_URL: must be an http(s) URL without query, fragment, user name or password'],
    ['PUBLIC_URL', 'https://registry.example.com/?a=1', 'PUBLIC_URL: must be an http(s) URL without query, fragment, user name or password'],
  ])('rejects %s=%j with a message naming the variable and not the value', (name, value, message) => {
    const err = errorOf({ [name]: value });
    expect(err.message.startsWith(message)).toBe(true);
    expect(err.message).not.toContain(value);
    expect(err.message.split('\n')).toHaveLength(1);
  });

  it('takes PUBLIC_URL as given (without a trailing slash), else http://HOST:PORT', () => {
    expect(load({}).publicUrl).toBe('http://127.0.0.1:3000');
    expect(load({ HOST: '0.0.0.0', PORT: '8080' }).publicUrl).toBe('http://0.0.0.0:8080');
    expect(load({ HOST: '::1' }).publicUrl).toBe('http://[::1]:3000');
    expect(load({ PUBLIC_URL: 'https://registry.example.com/base/' }).publicUrl).toBe('https://registry.example.com/base');
  });

  it('treats an empty variable as unset', () => {
    expect(load({ PORT: '', DATABASE_URL: '', REDIS_URL: '' })).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      redisUrl: undefined,
    });
  });

  it('accepts the documented forms of each variable', () => {
    const c = load({
      PORT: ' 8080 ',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://registry:pw@db:5432/registry',
      DATABASE_PREPARED_STATEMENTS: 'no',
      REDIS_URL: 'rediss://cache:6380',
      WORKER_ENABLED: 'FALSE',
      MCP_OUTBOUND_ALLOW: '10.0.0.0/8, internal.example.com ,',
      DISCOVERY_INTERVAL_SECONDS: '60',
      DISCOVERY_TIMEOUT_MS: '5000',
      DISCOVERY_CONCURRENCY: '4',
      DISCOVERY_ATTEMPTS: '1',
      CORS_ORIGINS: 'https://a.example,https://b.example',
      ALLOWED_HOSTS: 'Registry.Example.com, 10.0.0.5',
      CREDENTIAL_ENV_ALLOW: 'GITHUB_TOKEN, VENDOR_KEY,',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgresql://registry:pw@db:5432/registry',
      databasePreparedStatements: false,
      redisUrl: 'rediss://cache:6380',
      workerEnabled: false,
      outboundAllow: ['10.0.0.0/8', 'internal.example.com'],
      discovery: { intervalSeconds: 60, timeoutMs: 5000, concurrency: 4, attempts: 1 },
      corsOrigins: ['https://a.example', 'https://b.example'],
      allowedHosts: ['registry.example.com', '10.0.0.5'],
      credentialEnvAllow: ['GITHUB_TOKEN', 'VENDOR_KEY'],
    });
    expect(load({ WORKER_ENABLED: '1' }).workerEnabled).toBe(true);
    expect(load({ PORT: '0' }).port).toBe(0);
  });

  it('has platform defaults for the per-tenant limits, read from their variables and checked', () => {
    expect(load({}).tenantLimits).toEqual({
      maxServers: 200,
      maxTools: 5000,
      maxCallsInFlight: 20,
      toolResultMaxBytes: 4 * 1024 * 1024,
      maxResultBytesInFlight: 32 * 1024 * 1024,
    });
    expect(load({}).discovery.tenantConcurrency).toBe(4);
    const c = load({
      TENANT_MAX_SERVERS: '10',
      TENANT_MAX_TOOLS: '300',
      TENANT_MAX_CALLS_IN_FLIGHT: '3',
      TOOL_RESULT_MAX_BYTES: '65536',
      TENANT_MAX_RESULT_BYTES_IN_FLIGHT: '131072',
      DISCOVERY_CONCURRENCY: '8',
      DISCOVERY_TENANT_CONCURRENCY: '3',
    });
    expect(c.tenantLimits).toEqual({ maxServers: 10, maxTools: 300, maxCallsInFlight: 3, toolResultMaxBytes: 65536, maxResultBytesInFlight: 131072 });
    expect(c.discovery.tenantConcurrency).toBe(3);
    expect(load({ DISCOVERY_CONCURRENCY: '2', DISCOVERY_TENANT_CONCURRENCY: '9' }).discovery.tenantConcurrency).toBe(2);
    expect(() => load({ TENANT_MAX_CALLS_IN_FLIGHT: '0' })).toThrow(/^TENANT_MAX_CALLS_IN_FLIGHT: must be at least 1/);
    expect(() => load({ TOOL_RESULT_MAX_BYTES: '4MB' })).toThrow(/^TOOL_RESULT_MAX_BYTES: must be a whole number/);
  });

  it('refuses an MCP_OUTBOUND_ALLOW entry that is neither a host, a suffix, an address nor a CIDR', () => {
    expect(load({ MCP_OUTBOUND_ALLOW: '10.0.0.0/8, fd00::/8, [::1], 127.0.0.1, *.corp.example.com, localhost' }).outboundAllow).toHaveLength(6);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'not a host', '10.0.0.0/8/1', 'example.com/24', 'http://x.example.com']) {
      expect(errorOf({ MCP_OUTBOUND_ALLOW: bad }).message).toMatch(/^MCP_OUTBOUND_ALLOW: must be a comma-separated list of host names/);
    }
  });

  it('refuses a CREDENTIAL_ENV_ALLOW that names a setting of the registry, or something that is not a variable name', () => {
    expect(errorOf({ CREDENTIAL_ENV_ALLOW: 'GITHUB_TOKEN,CREDENTIALS_KEY' }).message).toBe(
      'CREDENTIAL_ENV_ALLOW: CREDENTIALS_KEY is a setting of the registry itself and cannot be given to servers',
    );
    expect(errorOf({ CREDENTIAL_ENV_ALLOW: 'ADMIN_API_KEY' }).message).toContain('ADMIN_API_KEY is a setting of the registry itself');
    expect(errorOf({ CREDENTIAL_ENV_ALLOW: 'A-B' }).message).toBe('CREDENTIAL_ENV_ALLOW: must be a comma-separated list of environment variable names');
  });

  it('takes the role default for WORKER_ENABLED unless the variable says otherwise', () => {
    expect(load({}, false).workerEnabled).toBe(false);
    expect(load({}, true).workerEnabled).toBe(true);
    expect(load({ WORKER_ENABLED: 'true' }, false).workerEnabled).toBe(true);
    expect(load({ WORKER_ENABLED: 'no' }, true).workerEnabled).toBe(false);
  });

  it('resolves a relative DATA_DIR against the working directory', () => {
    const c = loadConfig({ DATA_DIR: 'relative-data-dir', ADMIN_API_KEY: 'a'.repeat(32), CREDENTIALS_KEY: randomBytes(32).toString('base64') });
    expect(c.dataDir).toBe(resolve(process.cwd(), 'relative-data-dir'));
  });

  it('refuses an emptied generated admin key file rather than run with an empty key', () => {
    writeFileSync(join(dataDir, 'admin-api-key'), '\n');
    expect(errorOf({}).message).toBe(`ADMIN_API_KEY: the generated key file ${join(dataDir, 'admin-api-key')} is empty`);
  });

  it('refuses a damaged generated credentials key', () => {
    writeFileSync(join(dataDir, 'credentials-key'), 'dG9vIHNob3J0\n');
    expect(errorOf({}).message).toBe('CREDENTIALS_KEY: the generated key file in DATA_DIR is damaged');
  });

  it('reads previous credentials keys for rotation, with or without an id prefix', () => {
    const a = randomBytes(32);
    const b = randomBytes(32);
    const c = load({ CREDENTIALS_KEYS_PREVIOUS: `old:${a.toString('base64')},${b.toString('base64')}` });
    expect(c.previousCredentialsKeys).toEqual([
      { id: keyId(a), key: a },
      { id: keyId(b), key: b },
    ]);
    expect(errorOf({ CREDENTIALS_KEYS_PREVIOUS: 'x:c2hvcnQ=' }).message).toBe(
      'CREDENTIALS_KEYS_PREVIOUS: each key must be 32 bytes, base64-encoded',
    );
  });

  it('wants all three Pipedream credentials or none', () => {
    expect(errorOf({ PIPEDREAM_CLIENT_ID: 'id' }).message).toMatch(/^PIPEDREAM_CLIENT_SECRET: /);
    expect(errorOf({ PIPEDREAM_CLIENT_ID: 'id', PIPEDREAM_CLIENT_SECRET: 's' }).message).toMatch(/^PIPEDREAM_PROJECT_ID: /);
    expect(errorOf({ PIPEDREAM_PROJECT_ID: 'p' }).message).toMatch(/^PIPEDREAM_CLIENT_ID: /);
    const c = load({ PIPEDREAM_CLIENT_ID: 'id', PIPEDREAM_CLIENT_SECRET: 's', PIPEDREAM_PROJECT_ID: 'p' });
    expect(c.pipedream).toEqual({
      clientId: 'id',
      clientSecret: 's',
      projectId: 'p',
      environment: 'development',
      apiUrl: 'https://api.pipedream.com',
      mcpUrl: 'https://remote.mcp.pipedream.net',
    });
  });

  it('never lets the longest call timeout fall below the default one', () => {
    const c = load({ CALL_TIMEOUT_MS: '400000', CALL_MAX_TIMEOUT_MS: '1000' });
    expect(c.call.maxTimeoutMs).toBe(400_000);
  });

  it('gives a key a short stable id', () => {
    const key = randomBytes(32);
    expect(keyId(key)).toMatch(/^[0-9a-f]{8}$/);
    expect(keyId(key)).toBe(keyId(Buffer.from(key)));
  });
});
