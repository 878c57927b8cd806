import { type ChangeEvent, type FormEvent, type ReactNode, useState } from 'react';
import { ApiError, type CreateServer, type Server, type Transport, type UpdateServer } from '../api';
import { ErrorNote, formatPairs, parsePairs } from '../ui';

export type FieldErrors = Record<string, string[]>;

/**
 * The API's field errors (problem+json `errors`), by the form field they belong to: `args.2` is the args field,
 * `credentials.headers.X-Key` the credential headers field, `env.PATH` the env field.
 */
export function fieldErrorsOf(err: unknown, fieldOf: (path: string) => string | null = serverFieldOf): { fields: FieldErrors; rest: string | null } {
  if (!(err instanceof ApiError)) return { fields: {}, rest: err instanceof Error ? err.message : String(err) };
  const fields: FieldErrors = {};
  const loose: string[] = [];
  for (const { field, message } of err.fieldErrors) {
    const name = fieldOf(field);
    if (name !== null) (fields[name] ??= []).push(message);
    else loose.push(`${field}: ${message}`);
  }
  const rest = err.fieldErrors.length === 0 || loose.length ? `${err.message} (${err.status})${loose.length ? ': ' + loose.join('; ') : ''}` : null;
  return { fields, rest };
}

function serverFieldOf(path: string): string | null {
  const parts = path.split(/[.[\]]/).filter(Boolean);
  const name = parts[0] === 'credentials' && parts[1] ? `credentials.${parts[1]}` : (parts[0] ?? '');
  return FORM_FIELDS.has(name) ? name : null;
}

const FORM_FIELDS = new Set([
  'name',
  'kind',
  'transport',
  'tenantId',
  'url',
  'command',
  'args',
  'env',
  'headers',
  'credentials',
  'credentials.bearerToken',
  'credentials.headers',
  'credentials.env',
  'metadata',
  'discoveryIntervalSeconds',
  'enabled',
]);

export function Field({ id, label, hint, errors, children }: { id: string; label: string; hint?: string; errors?: string[]; children: ReactNode }) {
  return (
    <div className={`field${errors?.length ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {errors?.map((m, i) => (
        <p key={i} className="field-error" id={i === 0 ? `${id}-error` : undefined} role="alert">
          {m}
        </p>
      ))}
    </div>
  );
}

/** aria attributes tying an input to its hint and errors. */
export function described(id: string, errors?: string[], hint?: boolean) {
  const ids = [hint ? `${id}-hint` : '', errors?.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { id, 'aria-invalid': errors?.length ? true : undefined, 'aria-describedby': ids || undefined };
}

/**
 * A labelled text field with its hint and the errors beside it: a textarea when it has rows. `value` and
 * `onChange` are the draft's (see bind in ServerForm); the rest goes to the control.
 */
function TextField({
  id,
  label,
  hint,
  errors,
  value,
  onChange,
  rows,
  ...attributes
}: {
  id: string;
  label: string;
  hint: string;
  errors?: string[];
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  type?: 'url' | 'password';
  autoComplete?: 'off';
  inputMode?: 'numeric';
  spellCheck?: boolean;
  required?: boolean;
}) {
  const control = {
    ...described(id, errors, true),
    ...attributes,
    value,
    onChange: (x: ChangeEvent<HTMLInputElement & HTMLTextAreaElement>) => onChange(x.target.value),
  };
  return (
    <Field id={id} label={label} hint={hint} errors={errors}>
      {rows ? <textarea {...control} rows={rows} /> : <input {...control} />}
    </Field>
  );
}

interface Draft {
  name: string;
  transport: Transport;
  tenantId: string;
  url: string;
  command: string;
  args: string;
  env: string;
  headers: string;
  bearerToken: string;
  secretHeaders: string;
  credentialEnv: string;
  metadata: string;
  interval: string;
  enabled: boolean;
}

/** The fields of the draft typed as text. */
type TextKey = Exclude<keyof Draft, 'transport' | 'enabled'>;

function draftOf(server?: Server): Draft {
  return {
    name: server?.name ?? '',
    transport: server?.transport ?? 'streamable-http',
    tenantId: '',
    url: server?.url ?? '',
    command: server?.command ?? '',
    args: (server?.args ?? []).join('\n'),
    env: formatPairs(server?.env as Record<string, string> | undefined, '='),
    headers: formatPairs(server?.headers as Record<string, string> | undefined, ':'),
    bearerToken: '',
    secretHeaders: '',
    credentialEnv: '',
    metadata: formatPairs(server?.metadata as Record<string, string> | undefined, '='),
    interval: server?.discoveryIntervalSeconds != null ? String(server.discoveryIntervalSeconds) : '',
    enabled: server?.enabled ?? true,
  };
}

/**
 * One form per kind and transport: stdio (command, args, env) for the admin's BUILT_IN servers; URL, headers and
 * credentials for remote ones. On edit, credentials are never shown: typing new ones replaces them.
 */
export function ServerForm({
  role,
  server,
  submitLabel,
  onSubmit,
}: {
  role: 'admin' | 'tenant';
  server?: Server;
  submitLabel: string;
  onSubmit: (body: CreateServer & UpdateServer) => Promise<void>;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(server));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const editing = Boolean(server);
  const builtIn = editing ? server!.kind === 'MCP_SERVER_KIND_BUILT_IN' : role === 'admin' && !d.tenantId.trim();
  const stdio = d.transport === 'stdio';
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((x) => ({ ...x, [k]: v }));
  /** A text field's value in the draft, and how it changes there. */
  const bind = (k: TextKey) => ({ value: d[k], onChange: (v: string) => set(k, v) });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setProblem(null);
    const body: CreateServer & UpdateServer = { name: d.name.trim(), transport: d.transport };
    // On edit, enabled is sent only when changed here: the page's own Enable/Disable stays the authority.
    if (!editing || d.enabled !== server!.enabled) body.enabled = d.enabled;
    if (!editing && role === 'admin') {
      if (d.tenantId.trim()) {
        body.tenantId = d.tenantId.trim();
        body.kind = 'MCP_SERVER_KIND_CUSTOM';
      } else body.kind = 'MCP_SERVER_KIND_BUILT_IN';
    }
    if (stdio) {
      body.command = d.command.trim();
      body.args = d.args.split('\n').map((a) => a.trim()).filter((a) => a !== '');
      body.env = parsePairs(d.env, '=');
      if (editing) body.url = null;
    } else {
      body.url = d.url.trim();
      body.headers = parsePairs(d.headers, ':');
      if (editing) body.command = null;
    }
    body.metadata = parsePairs(d.metadata, '=');
    if (d.interval.trim()) body.discoveryIntervalSeconds = Number(d.interval);
    else if (editing) body.discoveryIntervalSeconds = null;
    const credentials: NonNullable<CreateServer['credentials']> = {};
    if (d.bearerToken) credentials.bearerToken = d.bearerToken;
    if (d.secretHeaders.trim()) credentials.headers = parsePairs(d.secretHeaders, ':');
    if (d.credentialEnv.trim()) credentials.env = d.credentialEnv.trim();
    if (Object.keys(credentials).length) body.credentials = credentials;
    try {
      await onSubmit(body);
    } catch (err) {
      const { fields, rest } = fieldErrorsOf(err);
      setErrors(fields);
      setProblem(rest);
    } finally {
      setBusy(false);
    }
  }

  const e = (k: string) => errors[k];
  return (
    <form className="server-form" onSubmit={submit} noValidate aria-label={submitLabel}>
      <ErrorNote error={problem} />
      {Object.keys(errors).length > 0 && (
        <p className="error" role="alert">
          The registry refused some fields: see the messages beside them.
        </p>
      )}
      <TextField id="f-name" label="Name" hint="Unique among the owner's servers" errors={e('name')} {...bind('name')} required />
      {!editing && role === 'admin' && (
        <TextField id="f-tenant" label="Tenant id (optional)" hint="Empty: a BUILT_IN server of the platform. A tenant id: a CUSTOM server of that tenant (remote only)." errors={e('tenantId') ?? e('kind')} {...bind('tenantId')} />
      )}
      <Field id="f-transport" label="Transport" errors={e('transport')}>
        <select {...described('f-transport', e('transport'))} value={d.transport} onChange={(x) => set('transport', x.target.value as Transport)}>
          <option value="streamable-http">Streamable HTTP</option>
          <option value="sse">SSE (legacy)</option>
          {builtIn && <option value="stdio">stdio (a program on the platform's hosts)</option>}
        </select>
      </Field>
      {stdio ? (
        <fieldset>
          <legend>Program</legend>
          <TextField id="f-command" label="Command" hint="The program to run, e.g. node or npx" errors={e('command')} {...bind('command')} spellCheck={false} />
          <TextField id="f-args" label="Arguments" hint="One per line" errors={e('args')} {...bind('args')} rows={3} spellCheck={false} />
          <TextField id="f-env" label="Environment" hint="NAME=value, one per line (not secret: use a credential reference for secrets)" errors={e('env')} {...bind('env')} rows={3} spellCheck={false} />
        </fieldset>
      ) : (
        <fieldset>
          <legend>Endpoint</legend>
          <TextField id="f-url" label="URL" hint="https://… (the server's MCP endpoint)" errors={e('url')} {...bind('url')} type="url" spellCheck={false} />
          <TextField id="f-headers" label="Headers (not secret)" hint="Name: value, one per line" errors={e('headers')} {...bind('headers')} rows={2} spellCheck={false} />
        </fieldset>
      )}
      <fieldset>
        <legend>Credentials {editing ? (server!.hasCredentials ? '(set: type new ones to replace them)' : '(none set)') : '(optional, write-only)'}</legend>
        {!stdio && (
          <>
            <TextField id="f-bearer" label="Bearer token" hint="Sent as Authorization: Bearer …; stored encrypted, never shown again" errors={e('credentials.bearerToken') ?? e('credentials')} {...bind('bearerToken')} type="password" autoComplete="off" />
            <TextField id="f-secret-headers" label="Secret headers" hint="Name: value, one per line; stored encrypted" errors={e('credentials.headers')} {...bind('secretHeaders')} rows={2} spellCheck={false} autoComplete="off" />
          </>
        )}
        {builtIn && (
          <TextField id="f-cred-env" label="Token from the platform's environment" hint="A variable name, read only when connecting (BUILT_IN only)" errors={e('credentials.env')} {...bind('credentialEnv')} spellCheck={false} />
        )}
      </fieldset>
      <TextField id="f-metadata" label="Labels" hint="key=value, one per line" errors={e('metadata')} {...bind('metadata')} rows={2} spellCheck={false} />
      <TextField id="f-interval" label="Re-discovery every (seconds)" hint="Empty: the platform's default" errors={e('discoveryIntervalSeconds')} {...bind('interval')} inputMode="numeric" />
      <div className="field checkbox">
        <input id="f-enabled" type="checkbox" checked={d.enabled} onChange={(x) => set('enabled', x.target.checked)} />
        <label htmlFor="f-enabled">Enabled (discovered and callable)</label>
      </div>
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : submitLabel}
      </button>
    </form>
  );
}
