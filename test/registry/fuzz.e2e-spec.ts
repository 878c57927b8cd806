import { startTestApp, TestApp } from '../support/app';
import { makeTenant, TenantKey } from './helpers';

/** A small seeded generator, so a failure replays. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELD_NAMES = [
  'name', 'kind', 'transport', 'url', 'command', 'args', 'env', 'headers', 'credentials', 'enabled', 'metadata',
  'discoveryIntervalSeconds', 'tenantId', 'appSlug', 'accountId', 'serverId', 'status', 'pageSize', 'pageToken',
  'bearerToken', '__proto__', 'constructor', 'prototype', '', 'x'.repeat(300),
];
const STRINGS = [
  '', ' ', 'streamable-http', 'sse', 'stdio', 'in-process', 'MCP_SERVER_KIND_CUSTOM', 'MCP_SERVER_KIND_BUILT_IN', 'CUSTOM', '3',
  'https://mcp.example.com/mcp', 'http://169.254.169.254/', 'javascript:alert(1)', '\u0000', '\ud800', '😀'.repeat(50),
  "' OR 1=1 --", '${jndi:ldap://x}', '../../etc/passwd', '7d0c1a3e-9a55-4c2e-8f0e-2a7c1f6d9b10', 'slack', 'a'.repeat(5000),
];

function value(r: () => number, depth: number): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const n = r();
  if (depth > 3 || n < 0.35) {
    return pick<unknown>([null, true, false, 0, -1, 1.5, 1e308, -0, 2 ** 53, Number.MAX_SAFE_INTEGER + 2, pick(STRINGS), pick(STRINGS), pick(STRINGS)]);
  }
  if (n < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 6); i > 0; i--) o[pick(FIELD_NAMES)] = value(r, depth + 1);
  return o;
}

function nested(depth: number, leaf: string): string {
  return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

describe('malformed input at every write endpoint: never a 500, always problem+json', () => {
  let t: TestApp;
  let a: TenantKey;
  let serverId: string;
  let endpoints: { method: string; path: string; key: () => string | undefined }[];

  beforeAll(async () => {
    t = await startTestApp({
      worker: false,
      env: { MCP_OUTBOUND_ALLOW: '*.example.com', PIPEDREAM_CLIENT_ID: 'id', PIPEDREAM_CLIENT_SECRET: 'secret', PIPEDREAM_PROJECT_ID: 'proj' },
    });
    a = await makeTenant(t);
    serverId = (await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'target', transport: 'sse', url: 'https://t.example.com/sse' } })).body.id;
    endpoints = [
      { method: 'POST', path: '/api/v1/tenants', key: () => undefined },
      { method: 'POST', path: `/api/v1/tenants/${a.tenantId}/api-keys`, key: () => undefined },
      { method: 'POST', path: '/api/v1/servers', key: () => a.key },
      { method: 'POST', path: '/api/v1/servers', key: () => undefined },
      { method: 'PATCH', path: `/api/v1/servers/${serverId}`, key: () => a.key },
      { method: 'POST', path: `/api/v1/servers/${serverId}/discover`, key: () => a.key },
      { method: 'POST', path: '/api/v1/integrations', key: () => a.key },
      { method: 'POST', path: '/api/v1/llm/mcp-get-server-info', key: () => a.key },
      { method: 'POST', path: '/api/v1/llm/mcp-list-servers', key: () => a.key },
    ];
  });
  afterAll(async () => t?.close());

  async function send(e: (typeof endpoints)[number], rawBody: string, contentType = 'application/json') {
    const res = await t.request(e.method, e.path, { key: e.key(), rawBody, headers: { 'content-type': contentType } });
    const where = `${e.method} ${e.path} <- ${contentType} ${rawBody.slice(0, 200)}`;
    if (res.status >= 500) throw new Error(`${res.status} for ${where}: ${res.text.slice(0, 300)}`);
    if (res.status >= 400) {
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('application/problem+json')) throw new Error(`not problem+json (${type}) for ${where}`);
      if (res.body?.status !== res.status || typeof res.body?.detail !== 'string') throw new Error(`bad problem document for ${where}: ${res.text.slice(0, 200)}`);
    }
    return res;
  }

  it('survives invalid JSON, primitives and arrays where an object belongs', async () => {
    const bodies = ['{', '{"name":', '[', 'nul', '{"a":1,}', "{'a':1}", '\u0000', '\ufeff{}', 'null', '1', '"text"', 'true', '[]', '[{"name":"x"}]', '[[[]]]', '{"name":"x"}{"name":"y"}'];
    for (const e of endpoints) {
      for (const body of bodies) {
        const res = await send(e, body);
        // A byte-order mark before {} is still the empty object: valid where every field is optional.
        if (body === '\ufeff{}' && (e.method === 'PATCH' || e.path.endsWith('/api-keys') || e.path.endsWith('/discover') || e.path.endsWith('mcp-list-servers'))) continue;
        if (res.status < 400) throw new Error(`${res.status} for ${e.method} ${e.path} <- ${JSON.stringify(body)}`);
      }
    }
  });

  it('survives wrong content types and empty bodies', async () => {
    const cases: [string, string][] = [
      ['{"name":"x"}', 'text/plain'],
      ['name=x&transport=sse', 'application/x-www-form-urlencoded'],
      ['<server><name>x</name></server>', 'application/xml'],
      ['--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--', 'multipart/form-data; boundary=b'],
      ['{"name":"x"}', 'application/json; charset=latin-9'],
      ['{"name":"x"}', 'application/octet-stream'],
      ['', 'application/json'],
    ];
    for (const e of endpoints) for (const [body, type] of cases) await send(e, body, type);
  });

  it('survives oversize bodies, huge strings and deep nesting', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2_000_000) });
    for (const e of endpoints) {
      const res = await send(e, big);
      if (!e.path.endsWith('/discover')) expect([400, 413]).toContain(res.status);
      await send(e, JSON.stringify({ name: 'n'.repeat(300_000), url: 'https://' + 'a'.repeat(100_000) + '.example.com', appSlug: 's'.repeat(10_000), serverId: 'i'.repeat(10_000) }));
      await send(e, nested(5_000, '1'));
      await send(e, `{"metadata":${nested(3_000, '"v"')},"credentials":${nested(3_000, '{}')}}`);
      await send(e, JSON.stringify({ headers: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`h${i}`, 'v'])), args: Array.from({ length: 10_000 }, () => 'a') }));
    }
  });

  it('refuses prototype-pollution keys without polluting anything', async () => {
    const bodies = [
      '{"__proto__":{"polluted":"yes"},"name":"p1","transport":"sse","url":"https://p.example.com"}',
      '{"constructor":{"prototype":{"polluted":"yes"}},"name":"p2","transport":"sse","url":"https://p.example.com"}',
      '{"name":"p3","transport":"sse","url":"https://p.example.com","metadata":{"__proto__":"x"}}',
      '{"name":"p4","transport":"sse","url":"https://p.example.com","headers":{"__proto__":{"polluted":"yes"}}}',
      '{"name":"p5","transport":"sse","url":"https://p.example.com","credentials":{"__proto__":{"bearerToken":"t"}}}',
      '{"name":"p6","transport":"sse","url":"https://p.example.com","metadata":{"constructor":"x"}}',
      '{"appSlug":"slack","__proto__":{"accountId":"apn_x"}}',
      '{"serverId":"x","__proto__":{"serverId":"y"}}',
    ];
    for (const e of endpoints) {
      for (const body of bodies) {
        const res = await send(e, body);
        if (!e.path.endsWith('/discover')) expect(res.status).toBe(400);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await t.runtime.prisma.server.count({ where: { name: { in: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'] } } })).toBe(0);
  });

  it('survives random JSON documents of every shape (seeded)', async () => {
    const r = rng(20261129);
    const before = { servers: await t.runtime.prisma.server.count(), tenants: await t.runtime.prisma.tenant.count() };
    let created = { servers: 0, tenants: 0 };
    for (let i = 0; i < 360; i++) {
      const e = endpoints[i % endpoints.length];
      const body = r() < 0.8 ? value(r, 0) : { ...(value(r, 1) as object), name: `fuzz-${i}`, transport: 'sse', url: 'https://f.example.com' };
      const res = await send(e, JSON.stringify(body) ?? 'null');
      if (res.status === 201 && e.path === '/api/v1/servers') created.servers++;
      if (res.status === 201 && e.path === '/api/v1/integrations') created.servers++;
      if (res.status === 201 && e.path === '/api/v1/tenants') created.tenants++;
    }
    // What was refused left nothing behind.
    expect(await t.runtime.prisma.server.count()).toBe(before.servers + created.servers);
    expect(await t.runtime.prisma.tenant.count()).toBe(before.tenants + created.tenants);
  });

  it('survives malformed query strings on the lists', async () => {
    const queries = ['pageSize=-1', 'pageSize=1e3', 'pageSize=%00', 'pageToken=%ff%fe', 'pageToken=' + 'A'.repeat(5000), 'kind[]=1', 'kind[a]=b', 'q=' + 'x'.repeat(10_000), 'status=%E0%A4%A', '__proto__[x]=1', 'constructor[prototype][x]=1'];
    for (const path of ['/api/v1/servers', '/api/v1/tenants', '/api/v1/audit', `/api/v1/servers/${serverId}/discoveries`]) {
      for (const q of queries) {
        const res = await t.request('GET', `${path}?${q}`);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
    }
  });
});
