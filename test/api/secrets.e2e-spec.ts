import { QueueName } from '@app/queue';
import { useTestApp } from '../support/app';
import { expectProblem, makeTenant, TenantKey, watchSecrets } from '../support/tenants';

/**
 * Credentials are write-only: whatever path a request takes (created, changed,
 * refused, listed, audited, queued), no secret value comes back in a response
 * or a header, reaches a log line, an audit record or a job payload, or is
 * stored in the clear.
 */
describe('credentials are write-only', () => {
  const t = useTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '*.example.com', LOG_LEVEL: 'debug' } });
  let a: TenantKey;
  let secrets: ReturnType<typeof watchSecrets>;
  const used: string[] = [];
  const secret = (label: string) => {
    const s = secrets.secret(label);
    used.push(s);
    return s;
  };

  beforeAll(async () => {
    secrets = watchSecrets(t);
    a = await makeTenant(t);
  });

  it('never shows a secret, on any path a request can take', async () => {
    const created = await t.request('POST', '/api/v1/servers', {
      key: a.key,
      body: { name: 's1', transport: 'streamable-http', url: 'https://s.example.com/mcp', credentials: { bearerToken: secret('bearer'), headers: { 'X-Api-Key': secret('hdr') } } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const admin = await t.request('POST', '/api/v1/servers', { body: { name: 'vendor', transport: 'sse', url: 'https://v.example.com', credentials: { bearerToken: secret('vendor') } } });
    expect(admin.status).toBe(201);

    // Refusals that carry secrets beside the fault.
    const refusals: unknown[] = [
      { name: 's2', transport: 'stdio', credentials: { bearerToken: secret('stdio') } },
      { name: 's3', transport: 'sse', url: 'https://10.0.0.1/', credentials: { bearerToken: secret('private') } },
      { name: 's4', transport: 'sse', url: 'https://x.example.com', credentials: { bearerToken: `${secret('newline')}\r\nX-Evil: 1` } },
      { name: 's5', transport: 'sse', url: 'https://x.example.com', credentials: { bearerToken: secret('long').repeat(200) } },
      { name: 's6', transport: 'sse', url: 'https://x.example.com', credentials: { headers: { 'bad header': secret('badname') } } },
      { name: 's7', transport: 'sse', url: 'https://x.example.com', credentials: { headers: { 'X-Ok': 5, 'X-Secret': secret('mixed') } } },
      { name: 's8', transport: 'sse', url: 'https://x.example.com', credentials: { bearerToken: secret('extra'), password: secret('unknown-field') } },
      { name: 's9', transport: 'sse', url: 'https://x.example.com', credentials: { bearerToken: secret('envmix'), env: 'HOME' } },
      { name: 's1', transport: 'sse', url: 'https://x.example.com', credentials: { bearerToken: secret('conflict') } },
      { name: 's10', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'sse', url: 'https://x.example.com', credentials: { bearerToken: secret('forbidden') } },
      { name: 's11', transport: 'sse', url: `https://${secret('inurl')}:${secret('inurlpw')}@x.example.com/`, credentials: {} },
    ];
    for (const body of refusals) {
      const res = await t.request('POST', '/api/v1/servers', { key: a.key, body });
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
    const inUrl = await t.request('POST', '/api/v1/servers', { body: { name: 'admin-url', transport: 'sse', url: `https://user:${secret('admin-url')}@v.example.com/` } });
    expectProblem(inUrl, 400);
    expect(inUrl.body.errors).toEqual([{ field: 'url', message: expect.stringContaining('without a user name or password') }]);
    expectProblem(await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { url: 'https://[::1]/', credentials: { bearerToken: secret('patch-refused') } } }), 400);
    expect((await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { credentials: { bearerToken: secret('patched') } } })).status).toBe(200);
    const other = await makeTenant(t);
    expectProblem(await t.request('PATCH', `/api/v1/servers/${id}`, { key: other.key, body: { credentials: { bearerToken: secret('foreign') } } }), 404);
    await t.request('POST', '/api/v1/servers', { key: a.key, rawBody: `{"name":"bad json","credentials":{"bearerToken":"${secret('badjson')}"` });
    // JSON.parse's own message quotes the text around the fault: it must not reach the answer.
    for (const raw of [
      `{"credentials":{"bearerToken":${secret('unquoted')}}}`,
      secret('bare'),
      `{"credentials":{"bearerToken":"${secret('trailing')}"}x}`,
      `{"credentials":{"headers":{"X-Key":'${secret('single-quoted')}'}}}`,
    ]) {
      const res = await t.request('POST', '/api/v1/servers', { key: a.key, rawBody: raw });
      expectProblem(res, 400);
      expect(res.body.detail).toBe('the request body is not valid JSON');
    }

    // Every read of it.
    for (const [method, path, body] of [
      ['GET', `/api/v1/servers/${id}`],
      ['GET', '/api/v1/servers?pageSize=100'],
      ['POST', `/api/v1/servers/${id}/discover`],
      ['GET', `/api/v1/servers/${id}/tools`],
      ['GET', `/api/v1/servers/${id}/discoveries`],
      ['POST', '/api/v1/llm/mcp-get-server-info', { serverId: id }],
      ['POST', '/api/v1/llm/mcp-list-servers', {}],
    ] as [string, string, unknown?][]) {
      expect((await t.request(method, path, { key: a.key, body })).status).toBeLessThan(300);
    }
    expect((await t.request('GET', '/api/v1/audit?pageSize=100')).status).toBe(200);

    expect(secrets.leaks()).toEqual([]);
  });

  it('stores no secret in the clear, in the audit log or in a job payload', async () => {
    const servers = await t.runtime.prisma.server.findMany();
    const audit = await t.runtime.prisma.auditEvent.findMany();
    const queue = t.runtime.queue.createQueue(QueueName.Discovery);
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed']);
    const stored = JSON.stringify({ servers, audit, jobs: jobs.map((j) => j.data) });
    expect(jobs.length).toBeGreaterThan(0);
    expect(used.length).toBeGreaterThan(10);
    for (const s of used) expect(stored).not.toContain(s);
    const logs = t.logs();
    expect(logs.length).toBeGreaterThan(0);
    for (const s of used) expect(logs).not.toContain(s);
  });
});
