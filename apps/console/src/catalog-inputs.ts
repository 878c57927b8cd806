import type { ServerJson, ServerJsonArgument, ServerJsonInput, ServerJsonPackage, ServerJsonTransport } from '../../../libs/catalog/src/server-json';

export type { ServerJson, ServerJsonPackage, ServerJsonTransport };

/**
 * One value the person gives to make a server from a catalog entry, named as `fromCatalog.inputs` names it: a URL
 * template variable, a header, an environment variable, a named argument (`--port`) or a positional argument's
 * valueHint. A secret one is typed in a password field and stored write-only.
 */
export interface InputField {
  key: string;
  /** Where the value goes: "URL variable", "header", "environment variable", "argument". */
  where: string;
  description?: string;
  required: boolean;
  secret: boolean;
  choices?: string[];
  /** What the registry uses when nothing is given. */
  fallback?: string;
  placeholder?: string;
  /** A repeated argument: one value per line. */
  repeated: boolean;
}

export interface EntryInputs {
  fields: InputField[];
  /** Values that are not typed here, and why (a package's secret environment comes from the platform's). */
  notes: string[];
}

const VAR = /\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;
const list = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

function field(key: string, where: string, decl: ServerJsonInput | undefined, requiredWhenEmpty: boolean, secret = false): InputField {
  const fallback = decl?.value ?? decl?.default;
  return {
    key,
    where,
    description: decl?.description,
    required: fallback === undefined && (requiredWhenEmpty || decl?.isRequired === true),
    secret: secret || decl?.isSecret === true,
    choices: decl?.choices?.length ? decl.choices : decl?.format === 'boolean' ? ['true', 'false'] : undefined,
    fallback,
    placeholder: decl?.placeholder,
    repeated: false,
  };
}

/** `{name}` variables of a template, each declared in `variables` or not. */
function variablesOf(text: string | undefined, variables: Record<string, ServerJsonInput> | undefined, where: string, requiredWhenEmpty: boolean): InputField[] {
  if (!text) return [];
  return [...text.matchAll(VAR)].map((m) => field(m[1], where, variables?.[m[1]], requiredWhenEmpty || variables?.[m[1]] !== undefined));
}

function add(into: InputField[], more: InputField[]): void {
  for (const f of more) if (!into.some((x) => x.key === f.key)) into.push(f);
}

/** The inputs of one remote: its URL's variables, then its headers (secret ones, and Authorization-like ones, as secrets). */
export function remoteInputs(remote: ServerJsonTransport): EntryInputs {
  const fields: InputField[] = [];
  add(fields, variablesOf(remote.url, remote.variables, 'URL variable', true));
  for (const h of list(remote.headers)) {
    if (typeof h?.name !== 'string') continue;
    const secret = h.isSecret === true || /^(authorization|proxy-authorization|cookie)$/i.test(h.name);
    add(fields, [field(h.name, 'header', h, false, secret)]);
    // a variable inside a secret header's value is part of the secret (the token of "Bearer {token}")
    add(fields, variablesOf(h.value, h.variables, `variable of the header ${h.name}`, false).map((v) => ({ ...v, secret: v.secret || secret })));
  }
  return { fields, notes: [] };
}

function argumentInputs(args: ServerJsonArgument[] | undefined, where: string): InputField[] {
  const out: InputField[] = [];
  list(args).forEach((arg, i) => {
    const key = arg.type === 'named' ? arg.name : (arg.valueHint ?? `${where}.${i}`);
    if (!key) return;
    // A fixed value is part of the command line, not a question; only the variables in it are asked.
    if (arg.value !== undefined) {
      add(out, variablesOf(arg.value, arg.variables, `variable of the argument ${key}`, false));
      return;
    }
    out.push({ ...field(key, arg.type === 'named' ? 'named argument' : 'argument', arg, arg.isRequired === true), repeated: arg.isRepeated === true });
  });
  return out;
}

/** The inputs of one package: its environment (secret variables come from the platform's), then its arguments. */
export function packageInputs(pkg: ServerJsonPackage): EntryInputs {
  const fields: InputField[] = [];
  const notes: string[] = [];
  for (const e of list(pkg.environmentVariables)) {
    if (typeof e?.name !== 'string') continue;
    if (e.isSecret) {
      notes.push(
        `${e.name} is secret: the program gets it from the platform's environment variable ${e.name} (named MCP_SECRET_… or allowed by CREDENTIAL_ENV_ALLOW), never typed here.`,
      );
      continue;
    }
    add(fields, [field(e.name, 'environment variable', e, e.isRequired === true)]);
  }
  add(fields, argumentInputs(pkg.runtimeArguments, 'runtimeArguments'));
  add(fields, argumentInputs(pkg.packageArguments, 'packageArguments'));
  return { fields, notes };
}

/** What `fromCatalog.inputs` gets: only the values typed (empty ones are left to the entry's defaults). */
export function inputsToSend(fields: InputField[], values: Record<string, string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const f of fields) {
    const v = values[f.key] ?? '';
    if (f.repeated) {
      const lines = v.split('\n').map((l) => l.trim()).filter(Boolean);
      if (lines.length) out[f.key] = lines;
    } else if (v !== '') out[f.key] = v;
  }
  return out;
}

/** How a package is run, in words: `npm @scope/name@1.2.3 (stdio)`. */
export function packageLabel(pkg: ServerJsonPackage): string {
  return `${pkg.registryType} ${pkg.identifier}${pkg.version ? `@${pkg.version}` : ''} (${pkg.transport?.type ?? '?'})`;
}
