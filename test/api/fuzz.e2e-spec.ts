import fc from 'fast-check';
import dns from 'node:dns';
import { isIP } from 'node:net';
import { ToolCallService } from '../../apps/api/src/llm-tools/tool-call.service';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, TenantKey } from '../support/tenants';

/**
 * Hostile input at every operation the API documents: the operations, their parameters and their body
 * fields are read from /docs-json, so an endpoint added to the API is attacked without this file changing.
 * Every answer must be a success or a 4xx problem document, never a 500; a refused write must change nothing.
 * The budget is fixed: a seed, a number of runs per field, and a time bound for the whole property run.
 */

const SEED = 20261203;
/** Runs per (operation, field), each as the admin and as a tenant. */
const RUNS_PER_FIELD = 4;
/** Requests with the whole body replaced, per operation. */
const RUNS_PER_BODY = 6;
/** Wall-clock bound of the property runs (the rest of the file adds fixed corpora). */
const TIME_BOUND_MS = 35_000;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Schema {
  type?: string;
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  oneOf?: Schema[];
  allOf?: Schema[];
  example?: unknown;
  minimum?: number;
  maximum?: number;
  format?: string;
  additionalProperties?: boolean | Schema;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
  example?: unknown;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  bodyExample?: unknown;
  secured: boolean;
}

// ---------------------------------------------------------------------------------------------- the document

function resolve(doc: any, schema: Schema | undefined, seen = new Set<string>()): Schema | undefined {
  if (!schema) return undefined;
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return { type: 'object' };
    const name = schema.$ref.split('/').pop()!;
    return resolve(doc, doc.components.schemas[name], new Set([...seen, schema.$ref]));
  }
  if (schema.allOf?.length === 1) return resolve(doc, schema.allOf[0], seen);
  const out: Schema = { ...schema };
  if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(doc, v, seen)!]));
  if (schema.items) out.items = resolve(doc, schema.items, seen);
  return out;
}

function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const content = op.requestBody?.content?.['application/json'];
      const examples = content?.examples ? Object.values<any>(content.examples).map((e) => e.value) : [];
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as Parameter[],
        body: resolve(doc, content?.schema),
        bodyExample: content?.example ?? examples[0],
        secured: (op.security ?? doc.security ?? []).length > 0 || path.startsWith('/api/v1/') || path === '/mcp',
      });
    }
  }
  return out;
}

/** A plausible value for a schema: its example, else the first enum value, else something of its type. */
function plausible(schema: Schema | undefined, depth = 0): Json {
  if (!schema) return 'x';
  if (schema.example !== undefined) return schema.example as Json;
  if (schema.enum?.length) return schema.enum[0] as Json;
  if (schema.oneOf?.length) return plausible(schema.oneOf[0], depth);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      if (depth > 3 || !schema.properties) return {};
      return Object.fromEntries((schema.required ?? []).map((k) => [k, plausible(schema.properties![k], depth + 1)]));
    default:
      return schema.format === 'uuid' ? '0190a3c0-0000-7000-8000-000000000000' : 'x';
  }
}

/** Every field path of a body schema, to two levels (`credentials.bearerToken`), array items as `0`. */
function fieldPaths(schema: Schema | undefined, prefix: string[] = [], depth = 0): string[][] {
  if (!schema || depth > 2) return [];
  const out: string[][] = [];
  if (schema.properties) {
    for (const [k, v] of Object.entries(schema.properties)) {
      out.push([...prefix, k]);
      out.push(...fieldPaths(v, [...prefix, k], depth + 1));
    }
  } else if (schema.type === 'array' && schema.items) {
    out.push(...fieldPaths(schema.items, [...prefix, '0'], depth + 1));
  }
  return out;
}

function setPath(base: Json, path: string[], value: Json): Json {
  const root = structuredClone(base) as Json;
  let node = (root && typeof root === 'object' ? root : {}) as Record<string, Json>;
  const top = node;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== 'object') node[key] = /^\d+$/.test(key) ? [] : {};
    node = node[key] as Record<string, Json>;
  }
  node[path[path.length - 1]] = value;
  return top;
}

// ------------------------------------------------------------------------------------------ hostile values

function nestedValue(depth: number, leaf: Json): Json {
  let v: Json = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const hostileString = fc.oneof(
  fc.constantFrom(
    '', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\udc00\ud800', '\ufeff', '\u202etxt.exe', '\u200b', 'é', '\u0065\u0301', '😀',
    '\uffff', '\u2028\u2029', '\r\nX-Injected: 1', "' OR 1=1 --", '"; DROP TABLE servers; --', '${jndi:ldap://127.0.0.1/x}', '{{7*7}}',
    '../../etc/passwd', '<script>alert(1)</script>', '%00', '%ff%fe', '__proto__', 'constructor', 'javascript:alert(1)',
    'http://169.254.169.254/latest/meta-data', 'file:///etc/passwd', 'https://[::1]/', 'NaN', '-1', '1e999',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(300, 2_100, 70_000, 1_100_000).map((n) => 'x'.repeat(n)),
  fc.uuid().map((u) => u.toUpperCase()),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(-1, 0, -0, 0.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 101, 1_000_000),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [null], { '': '' }) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 3_000 }).map((d) => nestedValue(d, 'leaf')) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 4 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
);

/** What a query parameter carries on the wire: any hostile value, written out, percent-encoded or raw. */
const hostileQuery = fc.oneof(
  hostileValue.map((v) => encodeURIComponent(typeof v === 'string' ? v.replace(/[\ud800-\udfff]/g, '') : JSON.stringify(v))),
  fc.constantFrom('%00', 'a%00', '%ff%fe', '%ED%A0%80', '%E0%A4%A', '%', '%%', '1e3', '-1', '0', '101', 'A'.repeat(5000), '[]', '[object Object]'),
);

// -------------------------------------------------------------------------------------------------- the run

/** Runs a property and fails with the first failure's own message (a counterexample may be megabytes long). */
async function check<T>(property: fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<void> {
  const details = await fc.check(property, params);
  // The time bound reached before a run completed: fast-check counts that as failed, but nothing was refused wrongly.
  if (details.failed && details.interrupted && details.counterexample === null) return;
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`property failed (seed ${details.seed}, path ${details.counterexamplePath}): ${cause.slice(0, 2000)}`);
  }
}

describe('hostile input at every documented operation: never a 500, always problem+json, a refused write changes nothing', () => {
  let t: TestApp;
  let a: TenantKey;
  let ops: Operation[];
  let ids: Record<string, () => string>;
  const statuses = new Map<number, number>();
  let requests = 0;
  const realLookup = dns.lookup;

  beforeAll(async () => {
    // No name this test makes up is ever looked up on the network: only loopback names resolve.
    (dns as { lookup: unknown }).lookup = (host: string, options: unknown, callback?: unknown) => {
      const cb = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      if (host === 'localhost' || isIP(host) !== 0) return realLookup(host, options as dns.LookupAllOptions, cb as never);
      const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      process.nextTick(() => cb(err));
    };
    t = await startTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '*.example.com' } });
    a = await makeTenant(t);
    const own = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'fuzz-target', transport: 'sse', url: 'https://t.example.com/sse' } });
    const builtIn = await t.request('POST', '/api/v1/servers', { body: { name: 'fuzz-builtin', transport: 'streamable-http', url: 'https://b.example.com/mcp' } });
    // A key the run may revoke: never the one it sends.
    const spare = await t.request('POST', `/api/v1/tenants/${a.tenantId}/api-keys`, { body: { name: 'spare' } });
    ids = { server: () => own.body.id, builtIn: () => builtIn.body.id, tenant: () => a.tenantId, key: () => spare.body.id };
    ops = operations((await t.request('GET', '/docs-json', { key: null })).body);
  });

  afterAll(async () => {
    (dns as { lookup: unknown }).lookup = realLookup;
    await t?.close();
  });

  /**
   * Everything a refused write could have touched, in one round trip. Tool calls are audited as they are
   * attempted (a call refused with 404 or 409 too), in the background: their records are written first.
   */
  async function state(withAudit: boolean): Promise<string> {
    await t.app.get(ToolCallService).flushAudit();
    const rows = await t.runtime.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT (SELECT count(*) FROM servers)::int AS servers, (SELECT max(updated_at) FROM servers)::text AS servers_changed,
              (SELECT count(*) FROM tenants)::int AS tenants, (SELECT count(*) FROM api_keys)::int AS keys,
              (SELECT count(*) FROM api_keys WHERE revoked_at IS NOT NULL)::int AS revoked, (SELECT count(*) FROM audit_events)::int AS audit,
              (SELECT count(*) FROM tools)::int AS tools`,
    );
    if (!withAudit) delete rows[0].audit;
    return JSON.stringify(rows[0]);
  }

  let stateMs = 0;
  let requestMs = 0;

  interface Sent {
    op: Operation;
    key: string | undefined;
    path: string;
    rawBody?: string;
    headers?: Record<string, string>;
  }

  async function send(s: Sent): Promise<{ status: number }> {
    const write = s.op.method !== 'GET';
    // The RPC API and /mcp change nothing but the audit log of the calls they make (a refused call included).
    const call = s.op.path.startsWith('/api/v1/llm/') || s.op.path === '/mcp';
    let mark = performance.now();
    const before = write ? await state(true) : undefined;
    stateMs += performance.now() - mark;
    mark = performance.now();
    const res = await t.request(s.op.method, s.path, { key: s.key, rawBody: s.rawBody, headers: s.headers });
    requestMs += performance.now() - mark;
    requests++;
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const where = `${s.op.method} ${s.path.slice(0, 300)} (${s.key === a.key ? 'tenant' : 'admin'}) <- ${(s.rawBody ?? '').slice(0, 300)}`;
    if (res.status >= 500) {
      const cause = t.logs().split('\n').filter((l) => l.includes(res.body?.errorId ?? '(none)')).join('\n');
      throw new Error(`${res.status} for ${where}: ${res.text.slice(0, 400)}\n${cause.slice(0, 1500)}`);
    }
    if (res.status >= 400) {
      const type = res.headers.get('content-type') ?? '';
      // The MCP endpoint answers refusals inside the Streamable HTTP exchange (406, 415) as JSON-RPC errors, as MCP clients expect.
      const jsonRpc = s.op.path === '/mcp' && type.includes('application/json') && typeof res.body?.error?.code === 'number';
      if (!jsonRpc) {
        if (!type.includes('application/problem+json')) throw new Error(`not problem+json (${type}) for ${where}`);
        const b = res.body;
        if (b?.status !== res.status || typeof b?.title !== 'string' || typeof b?.detail !== 'string' || !/^\/problems\/[a-z-]+$/.test(b?.type)) {
          throw new Error(`not a problem document for ${where}: ${res.text.slice(0, 300)}`);
        }
        if (res.status === 400 && b.errors !== undefined && !Array.isArray(b.errors)) throw new Error(`errors is not a list for ${where}`);
      }
      if (write) {
        // A refused write is audited nowhere and changes nothing; only a call that was made is audited.
        const after = await state(!call || res.status === 400);
        if (after !== (call && res.status !== 400 ? JSON.stringify({ ...JSON.parse(before!), audit: undefined }) : before)) throw new Error(`a refused write (${res.status}) changed ${before} to ${after}: ${where}`);
      }
    }
    if (res.status === 204 && s.op.method === 'DELETE' && s.path.includes(ids.server())) {
      const again = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: `fuzz-target-${requests}`, transport: 'sse', url: 'https://t.example.com/sse' } });
      ids.server = () => again.body.id;
    }
    return res;
  }

  /** A value for a path parameter: a real id (in either case), an unknown one, or something hostile. */
  function pathValue(op: Operation): fc.Arbitrary<string> {
    const real = op.path.startsWith('/api/v1/tenants') ? ids.tenant : op.path.startsWith('/api/v1/api-keys') ? ids.key : ids.server;
    return fc.oneof(
      fc.constant(null).map(() => real()),
      fc.constant(null).map(() => real().toUpperCase()),
      fc.constant(null).map(() => ids.builtIn()),
      fc.uuid(),
      hostileQuery.filter((v) => v.length > 0 && v.length < 3000 && !v.includes('/')),
    );
  }

  function buildPath(op: Operation, values: Record<string, string>, query: [string, string][]): string {
    let path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name]);
    if (query.length) path += '?' + query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
    return path;
  }

  function defaults(op: Operation): Record<string, fc.Arbitrary<string>> {
    return Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, pathValue(op)]));
  }

  const principal = fc.boolean();

  it(`sends hostile values in every field of every operation of /docs-json (seed ${SEED})`, async () => {
    const started = Date.now();
    const remaining = () => TIME_BOUND_MS - (Date.now() - started);
    expect(ops.length).toBeGreaterThan(20);
    let fieldsAttacked = 0;
    for (const op of ops) {
      const queryParams = op.parameters.filter((p) => p.in === 'query');
      const pathArbs = defaults(op);
      const pathRecord = Object.keys(pathArbs).length ? fc.record(pathArbs) : fc.constant({} as Record<string, string>);
      const base = (op.bodyExample ?? plausible(op.body)) as Json;
      const asKey = (admin: boolean) => (op.secured ? (admin ? t.adminKey : a.key) : undefined);

      // Each field on its own: the rest of the request is plausible.
      const targets: { kind: 'path' | 'query' | 'body'; name: string[] }[] = [
        ...op.parameters.filter((p) => p.in === 'path').map((p) => ({ kind: 'path' as const, name: [p.name] })),
        ...queryParams.map((p) => ({ kind: 'query' as const, name: [p.name] })),
        ...(op.body ? fieldPaths(op.body).map((name) => ({ kind: 'body' as const, name })) : []),
      ];
      for (const target of targets) {
        if (remaining() <= 0) break;
        fieldsAttacked++;
        const valueArb = target.kind === 'body' ? hostileValue.map((v) => v as Json) : hostileQuery;
        await check(
          fc.asyncProperty(pathRecord, valueArb, principal, async (pathValues, value, admin) => {
            const values = { ...pathValues };
            const query: [string, string][] = [];
            let body: Json | undefined = op.body ? base : undefined;
            if (target.kind === 'path') values[target.name[0]] = value as string;
            else if (target.kind === 'query') query.push([target.name[0], value as string]);
            else body = setPath(base, target.name, value as Json);
            await send({
              op,
              key: asKey(admin),
              path: buildPath(op, values, query),
              rawBody: body === undefined ? undefined : JSON.stringify(body),
              headers: op.path === '/mcp' ? { accept: 'application/json, text/event-stream' } : undefined,
            });
          }),
          { seed: SEED, numRuns: RUNS_PER_FIELD * 2, interruptAfterTimeLimit: Math.max(1, remaining()), markInterruptAsFailure: false, endOnFailure: true },
        );
      }

      // The whole body replaced, repeated query keys and odd headers.
      if ((op.body || queryParams.length) && remaining() > 0) {
        await check(
          fc.asyncProperty(
            pathRecord,
            hostileValue,
            fc.array(fc.tuple(fc.constantFrom(...(queryParams.length ? queryParams.map((p) => p.name) : ['x'])), hostileQuery), { maxLength: 4 }),
            fc.constantFrom<Record<string, string>>({}, { 'mcp-protocol-version': '1999-01-01' }, { 'content-type': 'application/json; charset=utf-8' }, { accept: 'application/json, text/event-stream' }),
            principal,
            async (pathValues, body, query, headers, admin) => {
              await send({
                op,
                key: asKey(admin),
                path: buildPath(op, pathValues, query),
                rawBody: op.body ? JSON.stringify(body) : undefined,
                headers: op.path === '/mcp' ? { accept: 'application/json, text/event-stream', ...headers } : headers,
              });
            },
          ),
          { seed: SEED + 1, numRuns: RUNS_PER_BODY, interruptAfterTimeLimit: Math.max(1, remaining()), markInterruptAsFailure: false, endOnFailure: true },
        );
      }
    }
    const totals = [...statuses.entries()].sort(([x], [y]) => x - y).map(([s, n]) => `${s}: ${n}`).join(', ');
    process.stdout.write(
      `property run (seed ${SEED}): ${requests} requests to ${ops.length} operations, ${fieldsAttacked} fields, in ${Date.now() - started} ms (${Math.round(requestMs)} ms answering, ${Math.round(stateMs)} ms reading state); statuses ${totals}\n`,
    );
    expect(requests).toBeGreaterThan(ops.length);
  }, 120_000);

  // ------------------------------------------------------------------------------ fixed corpora, every write

  const writes = () => ops.filter((o) => o.method !== 'GET' && o.body !== undefined);
  const concrete = (o: Operation) => buildPath(o, Object.fromEntries(o.parameters.filter((p) => p.in === 'path').map((p) => [p.name, o.path.includes('tenants') ? ids.tenant() : ids.server()])), []);
  const raw = (o: Operation, rawBody: string, contentType = 'application/json', admin = false) =>
    send({ op: o, key: o.secured ? (admin ? t.adminKey : a.key) : undefined, path: concrete(o), rawBody, headers: { 'content-type': contentType, ...(o.path === '/mcp' ? { accept: 'application/json, text/event-stream' } : {}) } });

  it('survives invalid JSON, primitives and arrays where an object belongs, and wrong content types', async () => {
    const bodies = ['{', '{"name":', '[', 'nul', '{"a":1,}', "{'a':1}", '\u0000', 'null', '1', '"text"', 'true', '[[[]]]', '{"name":"x"}{"name":"y"}'];
    const types: [string, string][] = [
      ['{"name":"x"}', 'text/plain'],
      ['name=x&transport=sse', 'application/x-www-form-urlencoded'],
      ['<server><name>x</name></server>', 'application/xml'],
      ['{"name":"x"}', 'application/json; charset=latin-9'],
      ['', 'application/json'],
    ];
    for (const o of writes()) {
      for (const body of bodies) {
        const res = await raw(o, body, 'application/json', true);
        if (!o.path.endsWith('/discover')) expect(res.status).toBeGreaterThanOrEqual(400);
      }
      for (const [body, type] of types) await raw(o, body, type);
    }
  });

  it('refuses bodies over the limit and nested past the bound on every write, /mcp included', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1_100_000) });
    const deep = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
    for (const o of writes()) {
      expect([400, 413]).toContain((await raw(o, big)).status);
      expect((await raw(o, deep)).status).toBe(400);
    }
  });

  it('refuses prototype-pollution keys without polluting anything', async () => {
    const bodies = [
      '{"__proto__":{"polluted":"yes"},"name":"p1","transport":"sse","url":"https://p.example.com"}',
      '{"constructor":{"prototype":{"polluted":"yes"}},"name":"p2","transport":"sse","url":"https://p.example.com"}',
      '{"name":"p3","transport":"sse","url":"https://p.example.com","metadata":{"__proto__":"x"}}',
      '{"name":"p4","transport":"sse","url":"https://p.example.com","credentials":{"__proto__":{"bearerToken":"t"}}}',
      '{"serverId":"x","toolName":"t","arguments":{"__proto__":{"serverId":"y"}}}',
    ];
    for (const o of writes()) {
      for (const body of bodies) {
        const res = await raw(o, body);
        if (!o.path.endsWith('/discover')) expect(res.status).toBe(400);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await t.runtime.prisma.server.count({ where: { name: { in: ['p1', 'p2', 'p3', 'p4'] } } })).toBe(0);
  });
});
