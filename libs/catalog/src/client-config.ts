import type { ServerJson, ServerJsonArgument, ServerJsonKeyValueInput, ServerJsonPackage } from './server-json';
import { SERVER_SCHEMA_URL } from './server-json';

/** The namespace client-config entries are named under: their key becomes `local.mcp-config/<key>`. */
export const CLIENT_CONFIG_NAMESPACE = 'local.mcp-config';
/** Where the exact command of an entry no package type describes is kept. */
export const CLIENT_CONFIG_META = 'dev.mcp-registry/client-config';

/** A names that look like they hold secrets: their values are never stored in the catalog. */
const SECRET_NAME = /(key|token|secret|passw|pwd|auth|credential|cookie|session|private)/i;

export interface ClientConfigEntry {
  command?: unknown;
  args?: unknown;
  env?: unknown;
  url?: unknown;
  serverUrl?: unknown;
  type?: unknown;
  transport?: unknown;
  headers?: unknown;
}

export interface ConvertedEntry {
  key: string;
  server?: ServerJson;
  /** Why the entry cannot be described as a server.json (it is then refused). */
  error?: { field: string; message: string };
  /** Values left out of the catalog because they look secret (they must be given again as inputs). */
  withheld: string[];
}

/**
 * The transport the clients pick: VS Code's `type` (`stdio`, `http`, `sse`), Cursor's and Claude Desktop's
 * `command` for stdio, and for a bare `url` streamable HTTP unless the path ends in `/sse` (the older SSE
 * transport's usual endpoint), as Claude Code and Cursor guess it.
 */
export function guessTransport(entry: ClientConfigEntry): 'stdio' | 'streamable-http' | 'sse' | undefined {
  const type = typeof entry.type === 'string' ? entry.type : typeof entry.transport === 'string' ? entry.transport : undefined;
  if (type) {
    const t = type.toLowerCase().replace(/[_\s]/g, '-');
    if (t === 'stdio') return 'stdio';
    if (t === 'sse') return 'sse';
    if (t === 'http' || t === 'streamable-http' || t === 'streamablehttp' || t === 'streamable') return 'streamable-http';
    return undefined;
  }
  if (typeof entry.command === 'string') return 'stdio';
  const url = typeof entry.url === 'string' ? entry.url : typeof entry.serverUrl === 'string' ? entry.serverUrl : undefined;
  if (url) {
    let path = '';
    try {
      path = new URL(url).pathname;
    } catch {
      return 'streamable-http';
    }
    return /\/sse\/?$/.test(path) ? 'sse' : 'streamable-http';
  }
  return undefined;
}

function nameOf(key: string): string {
  const cleaned = key.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'server';
  return `${CLIENT_CONFIG_NAMESPACE}/${cleaned.slice(0, 180)}`;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean').map(([k, v]) => [k, String(v)]));
}

/** A name=value pair as a server.json input: a secret-looking one is required and secret, its value left out. */
function keyValue(name: string, value: string, withheld: string[], where: string): ServerJsonKeyValueInput {
  if (SECRET_NAME.test(name)) {
    withheld.push(`${where}.${name}`);
    return { name, isRequired: true, isSecret: true };
  }
  return { name, value };
}

const split = (spec: string, at: string): [string, string | undefined] => {
  const i = spec.lastIndexOf(at);
  return i > 0 ? [spec.slice(0, i), spec.slice(i + at.length)] : [spec, undefined];
};

/** `npx -y pkg@1.2.3 --flag`, `uvx pkg==1.2 a`, `docker run -i --rm image:tag`, `dnx Pkg@1.0 --yes`: a package. */
function packageOf(command: string, args: string[]): { pkg: ServerJsonPackage; rest: string[] } | undefined {
  const program = command.split(/[\\/]/).pop()!.replace(/\.(cmd|exe)$/i, '');
  const positional = (from: number) => {
    let i = from;
    while (i < args.length && args[i].startsWith('-')) i++;
    return i;
  };
  if (program === 'npx' || program === 'bunx' || program === 'pnpx') {
    const i = positional(0);
    if (i >= args.length) return undefined;
    const spec = args[i];
    const at = spec.lastIndexOf('@');
    const [identifier, version] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, undefined];
    return { pkg: { registryType: 'npm', identifier, ...(version && version !== 'latest' ? { version } : {}), runtimeHint: program, transport: { type: 'stdio' } }, rest: args.slice(i + 1) };
  }
  if (program === 'uvx' || program === 'pipx') {
    const i = positional(0);
    if (i >= args.length) return undefined;
    const [identifier, version] = split(args[i], '==');
    return { pkg: { registryType: 'pypi', identifier, ...(version ? { version } : {}), runtimeHint: program, transport: { type: 'stdio' } }, rest: args.slice(i + 1) };
  }
  if (program === 'dnx') {
    const i = positional(0);
    if (i >= args.length) return undefined;
    const [identifier, version] = split(args[i], '@');
    return { pkg: { registryType: 'nuget', identifier, ...(version ? { version } : {}), runtimeHint: 'dnx', transport: { type: 'stdio' } }, rest: args.slice(i + 1).filter((a) => a !== '--yes') };
  }
  if ((program === 'docker' || program === 'podman') && args[0] === 'run') {
    // The image is the first argument after run's options; options with a value (-e X, -v a:b) are skipped whole.
    const withValue = new Set(['-e', '--env', '-v', '--volume', '-p', '--publish', '--name', '--network', '-w', '--workdir', '--env-file', '-u', '--user', '--entrypoint', '--mount', '--platform']);
    let i = 1;
    while (i < args.length && args[i].startsWith('-')) i += withValue.has(args[i]) ? 2 : 1;
    if (i >= args.length) return undefined;
    const image = args[i];
    const colon = image.lastIndexOf(':');
    const [identifier, version] = colon > image.lastIndexOf('/') ? [image.slice(0, colon), image.slice(colon + 1)] : [image, undefined];
    const runtimeArguments: ServerJsonArgument[] = args.slice(1, i).filter((a) => !['-i', '--rm', '--interactive'].includes(a)).map((value) => ({ type: 'positional', value }));
    return {
      pkg: {
        registryType: 'oci',
        identifier: version && version !== 'latest' ? `${identifier}:${version}` : identifier,
        runtimeHint: 'docker',
        transport: { type: 'stdio' },
        ...(runtimeArguments.length ? { runtimeArguments } : {}),
      },
      rest: args.slice(i + 1),
    };
  }
  return undefined;
}

/**
 * One client-config entry (`mcpServers.<key>` of Claude Desktop and Cursor, `servers.<key>` of VS Code) as a
 * server.json: a remote for `url` entries, a package for the runners a package type describes (npx, uvx,
 * dnx, docker run), and otherwise the exact command under `_meta`. Values that look secret (API keys in env,
 * Authorization headers) are not kept: they become secret inputs to fill when the entry is instantiated.
 */
export function convertClientEntry(key: string, raw: unknown): ConvertedEntry {
  const withheld: string[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { key, withheld, error: { field: key, message: 'must be an object' } };
  const entry = raw as ClientConfigEntry;
  const transport = guessTransport(entry);
  const base = { $schema: SERVER_SCHEMA_URL, name: nameOf(key), description: `${key} (imported from a client configuration)`.slice(0, 100), version: '0.0.0' };
  if (!transport) return { key, withheld, error: { field: key, message: 'has neither a command nor a url (or an unknown type)' } };
  if (transport !== 'stdio') {
    const url = typeof entry.url === 'string' ? entry.url : typeof entry.serverUrl === 'string' ? entry.serverUrl : undefined;
    if (!url) return { key, withheld, error: { field: `${key}.url`, message: 'is required for a remote server' } };
    const headers = Object.entries(stringRecord(entry.headers)).map(([n, v]) => keyValue(n, v, withheld, `${key}.headers`));
    return { key, withheld, server: { ...base, remotes: [{ type: transport, url, ...(headers.length ? { headers } : {}) }] } };
  }
  if (typeof entry.command !== 'string' || !entry.command.trim()) return { key, withheld, error: { field: `${key}.command`, message: 'is required for a stdio server' } };
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  const env = Object.entries(stringRecord(entry.env)).map(([n, v]) => keyValue(n, v, withheld, `${key}.env`));
  const found = packageOf(entry.command, args);
  if (found) {
    const { pkg, rest } = found;
    if (rest.length) pkg.packageArguments = rest.map((value) => ({ type: 'positional', value }));
    if (env.length) pkg.environmentVariables = env;
    return { key, withheld, server: { ...base, ...(pkg.version ? { version: pkg.version } : {}), packages: [pkg] } };
  }
  return {
    key,
    withheld,
    server: { ...base, _meta: { [CLIENT_CONFIG_META]: { command: entry.command, args, environmentVariables: env } } },
  };
}
