import { loadConfig } from '@app/config';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Docker cannot run on every machine that runs the tests: these read the files the way Docker does and
// check what the registry relies on in them.

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
// js-yaml is installed with @nestjs/swagger (which writes the OpenAPI document as YAML too). YAML 1.1 is
// what Compose reads, merge keys (`<<: *anchor`) included.
const yaml = require('js-yaml') as { load(text: string, options: { schema: unknown }): unknown; YAML11_SCHEMA: unknown };

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  container_name?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  volumes?: string[];
}

const compose = yaml.load(read('docker-compose.yml'), { schema: yaml.YAML11_SCHEMA }) as { services: Record<string, ComposeService> };
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; config: { nodeFlags: string } };
const scripts = pkg.scripts;
/** The file a package.json start script runs. */
const entry = (script: string) => /node (?:\$npm_package_config_nodeFlags )?(\S+)/.exec(scripts[script])![1];
/** The node command line a start script runs: the V8 flags of config.nodeFlags, then the file. */
const nodeCommand = (script: string) => ['node', ...pkg.config.nodeFlags.split(' '), entry(script)];

/** Compose's `${NAME:?message}` / `${NAME:-default}` interpolation, with the given environment. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_m, name: string, op?: string, rest?: string) => {
    if (env[name]) return env[name];
    if (op === '?') throw new Error(`compose would stop: ${rest}`);
    return rest ?? '';
  });
}

describe('docker-compose.yml', () => {
  const { services } = compose;

  it('runs PostgreSQL 16 and Redis 7, each with a health check', () => {
    expect(services.postgres.image).toBe('postgres:16');
    expect(services.redis.image).toBe('redis:7');
    expect(services.postgres.healthcheck?.test?.join(' ')).toContain('pg_isready');
    expect(services.redis.healthcheck?.test?.join(' ')).toContain('ping');
  });

  it('runs the API without the worker, and a scalable worker, from the one image, once the datastores are healthy', () => {
    const { api, worker } = services;
    expect(api.command).toEqual(nodeCommand('start:api'));
    expect(api.environment?.WORKER_ENABLED).toBe('false');
    expect(worker.command).toEqual(nodeCommand('start:worker'));
    expect(api.image).toBe(worker.image);
    // A fixed name or a published port would stop `--scale worker=N`.
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    for (const s of [api, worker]) {
      expect(s.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    }
    for (const file of [entry('start:api'), entry('start:worker')]) {
      expect(existsSync(join(ROOT, 'apps', file.split('/apps/').pop()!.replace(/\.js$/, '.ts')))).toBe(true);
    }
  });

  it('starts with no environment at all: both roles share secrets generated once in one volume', () => {
    for (const name of ['api', 'worker']) {
      const raw = services[name].environment!;
      const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(String(v), {})]));
      expect(env.NODE_ENV).toBe('development');
      expect(env.DATA_DIR).toBe('/data');
      expect(env.ADMIN_API_KEY).toBe('');
      expect(services[name].volumes).toContain('registry-data:/data');
    }
  });

  it('gives both roles a production configuration that the registry accepts, with the secrets from the environment', () => {
    const secrets = { NODE_ENV: 'production', ADMIN_API_KEY: 'a'.repeat(32), CREDENTIALS_KEY: randomBytes(32).toString('base64') };
    for (const name of ['api', 'worker']) {
      const raw = services[name].environment!;
      const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(String(v), secrets)]));
      const config = loadConfig(env, { workerDefault: name === 'worker' });
      expect(config).toMatchObject({
        nodeEnv: 'production',
        databaseUrl: expect.stringMatching(/^postgresql:\/\/\w+:\w+@postgres:5432\//),
        redisUrl: 'redis://redis:6379',
        adminApiKey: secrets.ADMIN_API_KEY,
      });
      if (name === 'api') expect(config).toMatchObject({ workerEnabled: false, host: '0.0.0.0', port: 3000 });
      // Production without the secrets refuses to start.
      const bare = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, interpolate(String(v), { NODE_ENV: 'production' })]));
      expect(() => loadConfig(bare)).toThrow(/ADMIN_API_KEY/);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages[stages.length - 1];

  it('builds in one stage and runs from a smaller one, as a non-root user', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/npm ci\b[^\n]*\n[\s\S]*RUN npm run build/);
    expect(runtime).toMatch(/npm ci --omit=dev|COPY --from=\w+ [^\n]*node_modules/);
    expect(runtime).toMatch(/COPY --from=build [^\n]*\/app\/dist \.\/dist/);
    expect(runtime).toMatch(/COPY [^\n]*prisma \.\/prisma/);
    const user = /^USER (\S+)/m.exec(runtime);
    expect(user?.[1]).toBeDefined();
    expect(['root', '0']).not.toContain(user![1]);
  });

  it('listens on every interface, answers its health check on /health/ready and starts the API', () => {
    expect(runtime).toMatch(/HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/HEALTHCHECK [\s\S]*\/health\/ready/);
    const cmd = /^CMD (\[.*\])$/m.exec(runtime)!;
    expect(JSON.parse(cmd[1])).toEqual(nodeCommand('start'));
    // The memory settings `npm start` runs with (docs/deployment.md, "Memory"): the same V8 flags, malloc arenas and mmap threshold.
    expect(runtime).toMatch(/MALLOC_ARENA_MAX=2/);
    expect(runtime).toMatch(/MALLOC_MMAP_THRESHOLD_=32768/);
    for (const script of ['start', 'start:api', 'start:worker']) {
      expect(scripts[script]).toContain(
        'MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_:-32768} MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} exec node $npm_package_config_nodeFlags ',
      );
    }
  });

  it('has every file the build copies in its context (.dockerignore leaves them in)', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'prisma', 'apps', 'libs']));
    for (const path of copied) {
      expect(existsSync(join(ROOT, path))).toBe(true);
      expect(ignored).not.toContain(path);
    }
  });
});
