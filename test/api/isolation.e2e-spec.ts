import { DiscoveryProducer, QueueName } from '@app/queue';
import { randomUUID } from 'node:crypto';
import { TestApp, useTestApp } from '../support/app';
import { expectProblem, makeTenant, TenantKey } from '../support/tenants';

type Call = [method: string, path: string, body?: unknown];

/** Every endpoint that names one server, with a harmless valid body. */
const onServer = (id: string): Call[] => [
  ['GET', `/api/v1/servers/${id}`],
  ['PATCH', `/api/v1/servers/${id}`, { metadata: { touched: 'yes' } }],
  ['PATCH', `/api/v1/servers/${id}`, { enabled: false }],
  ['DELETE', `/api/v1/servers/${id}`],
  ['POST', `/api/v1/servers/${id}/discover`],
  ['GET', `/api/v1/servers/${id}/tools`],
  ['GET', `/api/v1/servers/${id}/discoveries`],
  ['POST', '/api/v1/llm/mcp-get-server-info', { serverId: id }],
];

describe('tenant isolation and authorisation, endpoint by endpoint', () => {
  const t = useTestApp({
    worker: false,
    env: {
      MCP_OUTBOUND_ALLOW: '*.example.com',
      PIPEDREAM_CLIENT_ID: 'pd-id',
      PIPEDREAM_CLIENT_SECRET: 'pd-secret-for-isolation',
      PIPEDREAM_PROJECT_ID: 'proj_iso',
      PIPEDREAM_MCP_URL: 'https://remote.mcp.example.com',
    },
  });
  let a: TenantKey;
  let b: TenantKey;
  let customA: string;
  let integrationA: string;
  let builtIn: string;
  let queue: ReturnType<TestApp['runtime']['queue']['createQueue']>;

  beforeAll(async () => {
    a = await makeTenant(t);
    b = await makeTenant(t);
    queue = t.runtime.queue.createQueue(QueueName.Discovery);
    customA = (await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'a-private', transport: 'sse', url: 'https://a.example.com/sse', credentials: { bearerToken: 'a-token-isolation' } } })).body.id;
    integrationA = (await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'gmail', accountId: 'apn_a' } })).body.id;
    builtIn = (await t.request('POST', '/api/v1/servers', { body: { name: 'catalog', transport: 'sse', url: 'https://c.example.com/sse' } })).body.id;
    await t.runtime.prisma.discoveryRun.create({ data: { id: randomUUID(), serverId: customA, trigger: 'manual', outcome: 'FAILED', error: 'a-only detail' } });
    for (const id of [customA, integrationA, builtIn]) await queue.remove(DiscoveryProducer.jobId(id));
  });

  const snapshot = async (id: string) => ({
    row: await t.runtime.prisma.server.findUnique({ where: { id } }),
    audit: await t.runtime.prisma.auditEvent.count({ where: { resourceId: id } }),
    job: await queue.getJob(DiscoveryProducer.jobId(id)),
  });

  it.each([
    ['CUSTOM', () => customA],
    ['INTEGRATION', () => integrationA],
  ])("answers tenant B with 404 on every endpoint of tenant A's %s server, and changes nothing", async (_kind, id) => {
    const before = await snapshot(id());
    for (const [method, path, body] of onServer(id())) {
      const res = await t.request(method, path, { key: b.key, body });
      expectProblem(res, 404);
      expect(res.text).not.toContain('a-private');
    }
    expect(await snapshot(id())).toEqual(before);
  });

  it("never lists tenant A's servers to tenant B, whatever the filter", async () => {
    for (const query of ['', '?kind=3', '?kind=5', '?q=a-private', '?status=4', '?pageSize=1']) {
      const res = await t.request('GET', `/api/v1/servers${query}`, { key: b.key });
      expect(res.status).toBe(200);
      for (const s of res.body.servers) expect(s.tenantId).not.toBe(a.tenantId);
    }
    for (const body of [{}, { kind: 3 }, { kind: 'MCP_SERVER_KIND_INTEGRATION' }]) {
      const res = await t.request('POST', '/api/v1/llm/mcp-list-servers', { key: b.key, body });
      expect(res.body.servers.map((s: { serverId: string }) => s.serverId)).not.toContain(customA);
      expect(res.body.servers.map((s: { serverId: string }) => s.serverId)).not.toContain(integrationA);
    }
    const listA = await t.request('GET', '/api/v1/servers?pageSize=100', { key: a.key });
    expect(listA.body.servers.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining([customA, integrationA, builtIn]));
  });

  it("lets the owner and the admin reach the owner's server", async () => {
    for (const key of [a.key, undefined]) {
      for (const [method, path, body] of onServer(customA).filter(([m, p]) => m !== 'DELETE' && !p.endsWith('discover') && !(m === 'PATCH'))) {
        expect((await t.request(method, path, { key, body })).status).toBe(200);
      }
    }
  });

  it('answers a tenant with 403 on every admin-only action', async () => {
    const calls: Call[] = [
      ['POST', '/api/v1/tenants', { name: 'sneaky' }],
      ['GET', '/api/v1/tenants'],
      ['POST', `/api/v1/tenants/${a.tenantId}/api-keys`, {}],
      ['POST', `/api/v1/tenants/${b.tenantId}/api-keys`, {}],
      ['GET', `/api/v1/tenants/${a.tenantId}/api-keys`],
      ['DELETE', `/api/v1/api-keys/${a.keyId}`],
      ['DELETE', `/api/v1/api-keys/${b.keyId}`],
      ['GET', '/api/v1/audit'],
      ['POST', '/api/v1/servers', { name: 'vendor', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'sse', url: 'https://v.example.com' }],
      ['POST', '/api/v1/servers', { name: 'for-a', tenantId: a.tenantId, transport: 'sse', url: 'https://v.example.com' }],
      ['PATCH', `/api/v1/servers/${builtIn}`, { enabled: false }],
      ['DELETE', `/api/v1/servers/${builtIn}`],
      ['POST', `/api/v1/servers/${builtIn}/discover`],
      ['GET', `/api/v1/servers/${builtIn}/discoveries`],
    ];
    const before = await snapshot(builtIn);
    const tenants = await t.runtime.prisma.tenant.count();
    for (const [method, path, body] of calls) expectProblem(await t.request(method, path, { key: b.key, body }), 403);
    expect(await snapshot(builtIn)).toEqual(before);
    expect(await t.runtime.prisma.tenant.count()).toBe(tenants);
    expect(await t.runtime.prisma.apiKey.count({ where: { revokedAt: { not: null } } })).toBe(0);
    // The platform's servers are still readable by the tenant.
    expect((await t.request('GET', `/api/v1/servers/${builtIn}`, { key: b.key })).status).toBe(200);
    expect((await t.request('GET', `/api/v1/servers/${builtIn}/tools`, { key: b.key })).status).toBe(200);
  });

  it('answers 401 on every endpoint without a key, with a bad key and with a revoked key', async () => {
    const revoked = await makeTenant(t);
    await t.request('DELETE', `/api/v1/api-keys/${revoked.keyId}`);
    const calls: Call[] = [
      ['POST', '/api/v1/tenants', { name: 'x' }],
      ['GET', '/api/v1/tenants'],
      ['POST', `/api/v1/tenants/${a.tenantId}/api-keys`, {}],
      ['GET', `/api/v1/tenants/${a.tenantId}/api-keys`],
      ['DELETE', `/api/v1/api-keys/${a.keyId}`],
      ['POST', '/api/v1/servers', { name: 'x', transport: 'sse', url: 'https://x.example.com' }],
      ['GET', '/api/v1/servers'],
      ...onServer(customA),
      ['POST', '/api/v1/integrations', { appSlug: 'slack' }],
      ['GET', '/api/v1/audit'],
      ['POST', '/api/v1/llm/mcp-list-servers', {}],
    ];
    const before = await snapshot(customA);
    for (const key of [null, 'mcpr_' + 'x'.repeat(43), t.adminKey + 'x', revoked.key, a.key.toUpperCase()]) {
      for (const [method, path, body] of calls) {
        const res = await t.request(method, path, { key, body });
        expectProblem(res, 401);
      }
    }
    expect(await snapshot(customA)).toEqual(before);
  });
});
