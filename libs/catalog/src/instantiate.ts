import type { FieldError } from '@app/domain';
import type { ServerJson, ServerJsonArgument, ServerJsonInput, ServerJsonKeyValueInput, ServerJsonPackage, ServerJsonTransport } from './server-json';

/** The value an input takes from the caller: one string, or several for a repeated argument. */
export type InputValue = string | string[];

/** An ordinary registration, built from a catalog entry: handed to the server registration as is. */
export interface CatalogRegistration {
  transport: 'stdio' | 'streamable-http' | 'sse';
  url?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  headers?: Record<string, string>;
  /** Write-only: the secret headers. */
  credentials?: { headers?: Record<string, string>; env?: string };
}

export interface Instantiation {
  registration?: CatalogRegistration;
  errors: FieldError[];
}

const INPUTS = 'fromCatalog.inputs';
const VAR = /\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;

class Inputs {
  readonly errors: FieldError[] = [];
  readonly used = new Set<string>();
  constructor(private readonly given: Record<string, InputValue>) {}

  raw(name: string): InputValue | undefined {
    const v = this.given[name];
    if (v !== undefined) this.used.add(name);
    return v;
  }

  one(name: string): string | undefined {
    const v = this.raw(name);
    if (Array.isArray(v)) {
      this.errors.push({ field: `${INPUTS}.${name}`, message: 'takes one value, not a list' });
      return undefined;
    }
    return v;
  }

  /** `{var}` in a value replaced by the variable's input, value or default; an unfilled required one is named. */
  fill(text: string, variables: Record<string, ServerJsonInput> | undefined, where: string): string | undefined {
    let ok = true;
    const out = text.replace(VAR, (whole, name: string) => {
      const decl = variables?.[name];
      const value = this.one(name) ?? decl?.value ?? decl?.default;
      if (value === undefined) {
        if (decl || where === 'url') {
          ok = false;
          this.errors.push({ field: `${INPUTS}.${name}`, message: `is required (${decl?.description ?? `the {${name}} of the ${where}`})` });
        }
        return whole;
      }
      if (decl?.choices && !decl.choices.includes(value)) {
        ok = false;
        this.errors.push({ field: `${INPUTS}.${name}`, message: `must be one of ${decl.choices.join(', ')}` });
      }
      return value;
    });
    return ok ? out : undefined;
  }
}

function remoteRegistration(remote: ServerJsonTransport, inputs: Inputs): CatalogRegistration | undefined {
  if (remote.type === 'stdio' || !remote.url) return undefined;
  const url = inputs.fill(remote.url, remote.variables, 'url');
  const headers: Record<string, string> = {};
  const secret: Record<string, string> = {};
  for (const h of remote.headers ?? []) {
    const given = inputs.one(h.name);
    const value = given ?? (h.value !== undefined ? inputs.fill(h.value, h.variables, `header ${h.name}`) : h.default);
    if (value === undefined) {
      if (h.isRequired) inputs.errors.push({ field: `${INPUTS}.${h.name}`, message: `is required (${h.description ?? `the ${h.name} header`})` });
      continue;
    }
    if (h.choices && !h.choices.includes(value)) inputs.errors.push({ field: `${INPUTS}.${h.name}`, message: `must be one of ${h.choices.join(', ')}` });
    // A secret header is write-only (credentials, stored encrypted); so is any Authorization-like header.
    if (h.isSecret || /^(authorization|proxy-authorization|cookie)$/i.test(h.name)) secret[h.name] = value;
    else headers[h.name] = value;
  }
  if (url === undefined) return undefined;
  return {
    transport: remote.type,
    url,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(Object.keys(secret).length ? { credentials: { headers: secret } } : {}),
  };
}

/** The arguments of runtimeArguments/packageArguments: positional values, named `--flag value`, repeated ones once per value. */
function argumentsOf(list: ServerJsonArgument[] | undefined, inputs: Inputs, where: string): string[] {
  const out: string[] = [];
  (list ?? []).forEach((arg, i) => {
    const key = arg.type === 'named' ? arg.name! : (arg.valueHint ?? `${where}.${i}`);
    const given = inputs.raw(key);
    const values = (given === undefined ? [] : Array.isArray(given) ? given : [given]).map(String);
    if (values.length > 1 && !arg.isRepeated) {
      inputs.errors.push({ field: `${INPUTS}.${key}`, message: 'takes one value, not a list' });
      return;
    }
    if (values.length === 0) {
      const fixed = arg.value !== undefined ? inputs.fill(arg.value, arg.variables, `argument ${key}`) : arg.default;
      if (fixed !== undefined) values.push(fixed);
    }
    if (values.length === 0) {
      if (arg.isRequired) inputs.errors.push({ field: `${INPUTS}.${key}`, message: `is required (${arg.description ?? `the ${key} argument`})` });
      return;
    }
    if (arg.choices) for (const v of values) if (!arg.choices.includes(v)) inputs.errors.push({ field: `${INPUTS}.${key}`, message: `must be one of ${arg.choices.join(', ')}` });
    for (const v of values) {
      if (arg.type === 'named') {
        // A boolean flag given as "true" stands alone; "false" leaves it out.
        if (arg.format === 'boolean') {
          if (v === 'true') out.push(arg.name!);
          continue;
        }
        out.push(arg.name!, v);
      } else out.push(v);
    }
  });
  return out;
}

/**
 * The command a package's registry type and runtime hint imply, run without a shell: npm with npx, PyPI with
 * uvx, OCI images with docker, NuGet with dnx. MCPB bundles and other types are not run by the registry.
 */
function launcherOf(pkg: ServerJsonPackage, runtimeArgs: string[], envNames: string[]): { command: string; args: string[] } | FieldError {
  const v = pkg.version;
  const hint = pkg.runtimeHint;
  switch (pkg.registryType) {
    case 'npm': {
      const command = hint === 'bunx' || hint === 'pnpx' ? hint : 'npx';
      return { command, args: [...(command === 'npx' ? ['-y'] : []), ...runtimeArgs, v ? `${pkg.identifier}@${v}` : pkg.identifier] };
    }
    case 'pypi': {
      if (hint === 'pipx') return { command: 'pipx', args: ['run', ...runtimeArgs, v ? `${pkg.identifier}==${v}` : pkg.identifier] };
      return { command: 'uvx', args: [...runtimeArgs, v ? `${pkg.identifier}==${v}` : pkg.identifier] };
    }
    case 'oci': {
      const image = v && !/[:@][^/]*$/.test(pkg.identifier) ? `${pkg.identifier}:${v}` : pkg.identifier;
      // The container gets the server's environment variables by name (-e NAME passes the value through).
      return { command: hint === 'podman' ? 'podman' : 'docker', args: ['run', '-i', '--rm', ...envNames.flatMap((n) => ['-e', n]), ...runtimeArgs, image] };
    }
    case 'nuget':
      return { command: 'dnx', args: [...runtimeArgs, v ? `${pkg.identifier}@${v}` : pkg.identifier, '--yes'] };
    default:
      return { field: 'fromCatalog.package', message: `is a ${pkg.registryType} package, which the registry does not run (npm, pypi, oci and nuget are run)` };
  }
}

function packageRegistration(pkg: ServerJsonPackage, inputs: Inputs): CatalogRegistration | undefined {
  if (pkg.transport.type !== 'stdio') {
    inputs.errors.push({ field: 'fromCatalog.package', message: `serves ${pkg.transport.type} from a local process; only stdio packages are run (use a remote instead)` });
    return undefined;
  }
  const env: Record<string, string> = {};
  let secretEnv: string | undefined;
  for (const e of pkg.environmentVariables ?? ([] as ServerJsonKeyValueInput[])) {
    if (e.isSecret) {
      // A secret never goes into the stored environment: the platform's own variable of that name supplies it.
      if (inputs.raw(e.name) !== undefined) {
        inputs.errors.push({
          field: `${INPUTS}.${e.name}`,
          message: `is secret: the program gets it from the platform's environment variable ${e.name} (allowed by CREDENTIAL_ENV_ALLOW or named MCP_SECRET_…), not as a value`,
        });
        continue;
      }
      if (secretEnv) {
        inputs.errors.push({ field: `${INPUTS}.${e.name}`, message: `is a second secret environment variable; a server takes one from the platform (${secretEnv})` });
        continue;
      }
      secretEnv = e.name;
      continue;
    }
    const given = inputs.one(e.name);
    const value = given ?? (e.value !== undefined ? inputs.fill(e.value, e.variables, `variable ${e.name}`) : e.default);
    if (value === undefined) {
      if (e.isRequired) inputs.errors.push({ field: `${INPUTS}.${e.name}`, message: `is required (${e.description ?? `the ${e.name} environment variable`})` });
      continue;
    }
    env[e.name] = value;
  }
  const runtimeArgs = argumentsOf(pkg.runtimeArguments, inputs, 'runtimeArguments');
  const packageArgs = argumentsOf(pkg.packageArguments, inputs, 'packageArguments');
  const launcher = launcherOf(pkg, runtimeArgs, [...Object.keys(env), ...(secretEnv ? [secretEnv] : [])]);
  if ('field' in launcher) {
    inputs.errors.push(launcher);
    return undefined;
  }
  return {
    transport: 'stdio',
    command: launcher.command,
    args: [...launcher.args, ...packageArgs],
    ...(Object.keys(env).length ? { env } : {}),
    ...(secretEnv ? { credentials: { env: secretEnv } } : {}),
  };
}

/**
 * The registration a catalog entry's remote or package makes, with the caller's inputs filled in: URL
 * template variables, headers (secret ones as write-only credentials), package arguments and environment.
 * Errors name each missing or wrong input (`fromCatalog.inputs.api_key`) and inputs the entry does not declare.
 */
export function instantiate(server: ServerJson, choice: { remote?: number; package?: number }, given: Record<string, InputValue>): Instantiation {
  const inputs = new Inputs(given);
  let registration: CatalogRegistration | undefined;
  if (choice.package !== undefined) {
    const pkg = server.packages?.[choice.package];
    if (!pkg) return { errors: [{ field: 'fromCatalog.package', message: `the entry has ${server.packages?.length ?? 0} packages` }] };
    registration = packageRegistration(pkg, inputs);
  } else {
    const remotes = server.remotes ?? [];
    const index = choice.remote ?? 0;
    const remote = remotes[index];
    if (!remote) {
      return { errors: [{ field: choice.remote === undefined ? 'fromCatalog' : 'fromCatalog.remote', message: remotes.length ? `the entry has ${remotes.length} remotes` : 'the entry has no remote: name one of its packages (fromCatalog.package)' }] };
    }
    registration = remoteRegistration(remote, inputs);
  }
  for (const name of Object.keys(given)) {
    if (!inputs.used.has(name) && !inputs.errors.some((e) => e.field === `${INPUTS}.${name}`)) inputs.errors.push({ field: `${INPUTS}.${name}`, message: 'is not an input of this remote or package' });
  }
  return inputs.errors.length ? { errors: inputs.errors } : { registration, errors: [] };
}
