import { DiscoveryProducer, QueueName } from '@app/queue';
import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '../support/app';
import { expectProblem, fields, makeTenant, TenantKey, watchSecrets } from '../support/tenants';

describe('servers', () => {
  let t: TestApp;
  let a: TenantKey;
  let secrets: ReturnType<typeof watchSecrets>;
  let queue: ReturnType<TestApp['runtime']['queue']['createQueue']>;

  beforeAll(async () => {
    t = await startTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '*.example.com' } });
    secrets = watchSecrets(t);
    a = await makeTenant(t);
    queue = t.runtime.queue.createQueue(QueueName.Discovery);
  });
  afterAll(async () => {
    expect(secrets.leaks()).toEqual([]);
    await t?.close();
  });

  const queued = async (serverId: string) => (await queue.getJob(DiscoveryProducer.jobId(serverId)))?.data;

  describe('CUSTOM (tenant) registration', () => {
    it('registers a remote server: 201, DISCOVERING, discovery queued, credentials only as a flag', async () => {
      const token = secrets.secret('bearer');
      const header = secrets.secret('header');
      const res = await t.request('POST', '/api/v1/servers', {
        key: a.key,
        body: {
          name: 'github',
          transport: 'streamable-http',
          url: 'https://mcp.example.com/mcp',
          headers: { 'X-Org': 'acme' },
          credentials: { bearerToken: token, headers: { 'X-Api-Key': header } },
          metadata: { team: 'platform' },
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.any(String),
        name: 'github',
        kind: 'MCP_SERVER_KIND_CUSTOM',
        transport: 'streamable-http',
        url: 'https://mcp.example.com/mcp',
        headers: { 'X-Org': 'acme' },
        hasCredentials: true,
        enabled: true,
        metadata: { team: 'platform' },
        tenantId: a.tenantId,
        status: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING',
        statusReason: 'discovery queued',
        version: '',
        capabilities: [],
        toolCount: 0,
      });
      expect(res.body).not.toHaveProperty('credentials');
      expect(res.body.discoveryRequestedAt).toEqual(expect.any(String));
      // The job names the server and its tenant (the worker's fair share), never a secret.
      expect(await queued(res.body.id)).toEqual({ serverId: res.body.id, trigger: 'registered', tenantId: a.tenantId });
      const row = await t.runtime.prisma.server.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(row.credentialsCipher).toMatch(/^v1\./);
      expect(row.credentialsCipher).not.toContain(token);
    });

    it('defaults the kind to CUSTOM for a tenant, and accepts the kind as name, short name or number', async () => {
      for (const [i, kind] of [undefined, 'MCP_SERVER_KIND_CUSTOM', 'CUSTOM', 3].entries()) {
        const res = await t.request('POST', '/api/v1/servers', {
          key: a.key,
          body: { name: `kinds-${i}`, transport: 'sse', url: 'https://sse.example.com/sse', ...(kind === undefined ? {} : { kind }) },
        });
        expect(res.status).toBe(201);
        expect(res.body.kind).toBe('MCP_SERVER_KIND_CUSTOM');
      }
      const bad = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'k', kind: 9, transport: 'sse', url: 'https://x.example.com' } });
      expectProblem(bad, 400);
      expect(fields(bad.body)).toEqual(['kind']);
    });

    it('refuses stdio and in-process for a tenant, saying why', async () => {
      for (const transport of ['stdio', 'in-process']) {
        const res = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: `local-${transport}`, transport, command: 'node' } });
        expectProblem(res, 400);
        expect(fields(res.body)).toEqual(['transport']);
        expect(res.body.detail).toContain("would run a program on the platform's hosts");
      }
    });

    it('requires a URL for a remote transport and refuses stdio-only fields', async () => {
      const res = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'nourl', transport: 'sse', args: ['x'] } });
      expectProblem(res, 400);
      expect(fields(res.body).sort()).toEqual(['args', 'url']);
    });

    it('refuses an environment reference in tenant credentials', async () => {
      const res = await t.request('POST', '/api/v1/servers', {
        key: a.key,
        body: { name: 'envref', transport: 'sse', url: 'https://x.example.com', credentials: { env: 'HOME' } },
      });
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual(['credentials.env']);
    });

    it.each([
      ['http://169.254.169.254/', 'plain http'],
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://10.0.0.1/', 'plain http'],
      ['https://10.0.0.1/mcp', 'private'],
      ['http://[::1]/', 'plain http'],
      ['https://[::1]/mcp', 'loopback'],
      ['https://localhost/mcp', 'loopback'],
      ['https://100.64.0.1/mcp', 'carrier-grade NAT'],
      ['https://metadata.google.internal/', 'metadata'],
      ['https://[::ffff:127.0.0.1]/', 'loopback'],
      ['https://[::127.0.0.1]/mcp', 'IPv4-compatible address (::/96) that carries 127.0.0.1'],
      ['https://[::10.0.0.1]/mcp', 'IPv4-compatible address (::/96) that carries 10.0.0.1'],
      ['https://[::ffff:0:127.0.0.1]/mcp', 'IPv4-translated address (::ffff:0:0:0/96) that carries 127.0.0.1'],
      ['https://[64:ff9b:1::7f00:1]/mcp', 'local-use NAT64 address (64:ff9b:1::/48) that carries 127.0.0.1'],
      ['https://[64:ff9b::a9fe:a9fe]/mcp', 'NAT64 address (64:ff9b::/96) that carries 169.254.169.254'],
      ['https://[2002:7f00:1::]/mcp', '6to4 address (2002::/16) that carries 127.0.0.1'],
      ['https://[2001:0:7f00:1::]/mcp', 'Teredo address (2001::/32) whose server address is 127.0.0.1'],
      ['https://[fec0::1]/mcp', 'site-local'],
      ['https://[2001:db8::1]/mcp', 'documentation'],
      ['https://127.1/mcp', 'loopback'],
      ['https://0x7f.1/mcp', 'loopback'],
      ['https://2130706433/mcp', 'loopback'],
      ['https://user:pw@mcp.example.com/', 'without a user name or password'],
      ['ftp://mcp.example.com/', 'http(s) URL'],
      ['not a url', 'http(s) URL'],
    ])('refuses %s by the outbound policy, naming the field, storing nothing', async (url, reason) => {
      const before = await t.runtime.prisma.server.count();
      const res = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: `blocked-${randomUUID()}`, transport: 'streamable-http', url } });
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual(['url']);
      expect(res.body.detail).toContain(reason);
      const batch = await t.request('POST', '/api/v1/servers/batch', {
        key: a.key,
        body: { servers: [{ name: `fine-${randomUUID()}`, transport: 'sse', url: 'https://fine.example.com/sse' }, { name: `blocked-${randomUUID()}`, transport: 'sse', url }] },
      });
      expectProblem(batch, 400);
      expect(fields(batch.body)).toEqual(['servers.1.url']);
      expect(await t.runtime.prisma.server.count()).toBe(before);
    });

    it('applies the outbound policy to a changed URL too', async () => {
      const created = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'moving', transport: 'sse', url: 'https://a.example.com/sse' } });
      const res = await t.request('PATCH', `/api/v1/servers/${created.body.id}`, { key: a.key, body: { url: 'https://10.1.2.3/sse' } });
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual(['url']);
      expect((await t.request('GET', `/api/v1/servers/${created.body.id}`, { key: a.key })).body.url).toBe('https://a.example.com/sse');
    });

    it('accepts a public address literal without the allow list', async () => {
      const res = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'public-ip', transport: 'sse', url: 'https://8.8.8.8/sse' } });
      expect(res.status).toBe(201);
    });

    it('keeps names unique per owner: 409 for the same owner, fine for another', async () => {
      const body = { name: 'unique-one', transport: 'sse', url: 'https://u.example.com/sse' };
      expect((await t.request('POST', '/api/v1/servers', { key: a.key, body })).status).toBe(201);
      const again = await t.request('POST', '/api/v1/servers', { key: a.key, body });
      expectProblem(again, 409);
      expect(again.body.detail).toContain('unique-one');
      const b = await makeTenant(t);
      expect((await t.request('POST', '/api/v1/servers', { key: b.key, body })).status).toBe(201);
    });

    it('answers one 201 and one 409 to two concurrent registrations of one name', async () => {
      const body = { name: 'race', transport: 'sse', url: 'https://race.example.com/sse' };
      for (let round = 0; round < 3; round++) {
        const name = `${body.name}-${round}`;
        const results = await Promise.all([0, 1].map(() => t.request('POST', '/api/v1/servers', { key: a.key, body: { ...body, name } })));
        expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
        const listed = await t.request('GET', `/api/v1/servers?q=${name}`, { key: a.key });
        expect(listed.body.servers.filter((s: { name: string }) => s.name === name)).toHaveLength(1);
      }
    });

    it('refuses a blank name and control characters', async () => {
      for (const name of ['   ', 'bad\u0000name', 'x'.repeat(201)]) {
        const res = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name, transport: 'sse', url: 'https://n.example.com' } });
        expectProblem(res, 400);
        expect(fields(res.body)).toEqual(['name']);
      }
    });
  });

  describe('BUILT_IN (admin) registration', () => {
    it('lets the admin register a BUILT_IN server with an environment reference, seen by every tenant', async () => {
      const res = await t.request('POST', '/api/v1/servers', {
        body: { name: 'vendor', transport: 'streamable-http', url: 'http://10.0.0.5/mcp', credentials: { env: 'MCP_SECRET_VENDOR_TOKEN' } },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ kind: 'MCP_SERVER_KIND_BUILT_IN', tenantId: null, hasCredentials: true });
      const row = await t.runtime.prisma.server.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(row).toMatchObject({ credentialsEnv: 'MCP_SECRET_VENDOR_TOKEN', credentialsCipher: null });
      const seen = await t.request('GET', `/api/v1/servers/${res.body.id}`, { key: a.key });
      expect(seen.status).toBe(200);
      expect(seen.body).not.toHaveProperty('env');
    });

    it('lets the admin register a stdio BUILT_IN server, but never in-process', async () => {
      const ok = await t.request('POST', '/api/v1/servers', { body: { name: 'memory', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'stdio', command: 'node', args: ['x.js'], env: { A: '1' } } });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ transport: 'stdio', command: 'node', args: ['x.js'], env: { A: '1' }, url: null });
      const res = await t.request('POST', '/api/v1/servers', { body: { name: 'inproc', transport: 'in-process' } });
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual(['transport']);
    });

    it('refuses env together with secrets', async () => {
      const res = await t.request('POST', '/api/v1/servers', {
        body: { name: 'both', transport: 'sse', url: 'https://b.example.com', credentials: { env: 'X', bearerToken: secrets.secret('both') } },
      });
      expectProblem(res, 400);
      expect(fields(res.body)).toEqual(['credentials']);
    });

    it('answers a tenant asking for BUILT_IN with 403', async () => {
      const res = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'mine', kind: 2, transport: 'sse', url: 'https://m.example.com' } });
      expectProblem(res, 403);
      expect(res.body.detail).toContain('BUILT_IN');
    });

    it('lets the admin register CUSTOM for a tenant with tenantId, and requires it', async () => {
      const ok = await t.request('POST', '/api/v1/servers', { body: { name: 'for-a', tenantId: a.tenantId, transport: 'sse', url: 'https://f.example.com' } });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ kind: 'MCP_SERVER_KIND_CUSTOM', tenantId: a.tenantId });
      expect((await t.request('GET', `/api/v1/servers/${ok.body.id}`, { key: a.key })).status).toBe(200);
      const missing = await t.request('POST', '/api/v1/servers', { body: { name: 'for-?', kind: 'MCP_SERVER_KIND_CUSTOM', transport: 'sse', url: 'https://f.example.com' } });
      expectProblem(missing, 400);
      expect(fields(missing.body)).toEqual(['tenantId']);
      const unknown = await t.request('POST', '/api/v1/servers', { body: { name: 'for-x', tenantId: randomUUID(), transport: 'sse', url: 'https://f.example.com' } });
      expectProblem(unknown, 400);
      expect(fields(unknown.body)).toEqual(['tenantId']);
      const stdio = await t.request('POST', '/api/v1/servers', { body: { name: 'for-a-stdio', tenantId: a.tenantId, transport: 'stdio', command: 'sh' } });
      expectProblem(stdio, 400);
      const asTenant = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'x', tenantId: a.tenantId, transport: 'sse', url: 'https://f.example.com' } });
      expectProblem(asTenant, 403);
    });
  });

  describe('kinds that cannot be registered', () => {
    it.each([
      ['MCP_SERVER_KIND_INTERNAL', 403, 'compiled into the deployment'],
      [1, 403, 'compiled into the deployment'],
      ['MCP_SERVER_KIND_EXTERNAL', 403, 'this category does not designate a new tenant registration'],
      [4, 403, 'this category does not designate a new tenant registration'],
      ['MCP_SERVER_KIND_INTEGRATION', 400, 'POST /api/v1/integrations'],
    ])('refuses kind %s', async (kind, status, message) => {
      for (const key of [undefined, a.key]) {
        const res = await t.request('POST', '/api/v1/servers', { key, body: { name: 'nope', kind, transport: 'sse', url: 'https://n.example.com' } });
        expectProblem(res, status);
        expect(res.body.detail).toContain(message);
      }
    });
  });

  describe('get, change, delete', () => {
    let id: string;
    beforeAll(async () => {
      const res = await t.request('POST', '/api/v1/servers', {
        key: a.key,
        body: { name: 'lifecycle', transport: 'sse', url: 'https://l.example.com/sse', credentials: { bearerToken: secrets.secret('life') } },
      });
      id = res.body.id;
      await queue.remove(DiscoveryProducer.jobId(id));
    });

    it('changes labels without a new discovery', async () => {
      const res = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { metadata: { env: 'prod' }, discoveryIntervalSeconds: 600 } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ metadata: { env: 'prod' }, discoveryIntervalSeconds: 600 });
      expect(await queued(id)).toBeUndefined();
    });

    it('rediscovers when the connection changes', async () => {
      const res = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { headers: { 'X-Region': 'eu' } } });
      expect(res.body.status).toBe('MCP_SERVER_CONNECTION_STATUS_DISCOVERING');
      expect(await queued(id)).toEqual({ serverId: id, trigger: 'updated', tenantId: a.tenantId });
      await queue.remove(DiscoveryProducer.jobId(id));
    });

    it('disables and enables', async () => {
      const off = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { enabled: false } });
      expect(off.body).toMatchObject({ enabled: false, status: 'MCP_SERVER_CONNECTION_STATUS_DISCONNECTED', statusReason: 'disabled' });
      expectProblem(await t.request('POST', `/api/v1/servers/${id}/discover`, { key: a.key }), 409);
      const on = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { enabled: true } });
      expect(on.body).toMatchObject({ enabled: true, status: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING' });
      expect(await queued(id)).toEqual({ serverId: id, trigger: 'updated', tenantId: a.tenantId });
      await queue.remove(DiscoveryProducer.jobId(id));
    });

    it('removes credentials with null, and replaces them', async () => {
      const off = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { credentials: null } });
      expect(off.body.hasCredentials).toBe(false);
      const on = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { credentials: { headers: { 'X-Key': secrets.secret('replaced') } } } });
      expect(on.body.hasCredentials).toBe(true);
    });

    it('refuses null for a field that cannot be empty, and unknown fields', async () => {
      for (const body of [{ name: null }, { enabled: null }, { metadata: null }, { kind: 'MCP_SERVER_KIND_BUILT_IN' }, { tenantId: a.tenantId }, { status: 1 }]) {
        const res = await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body });
        expectProblem(res, 400);
        expect([...new Set(fields(res.body))]).toEqual([Object.keys(body)[0]]);
      }
    });

    it('queues a discovery on request: 202', async () => {
      await queue.remove(DiscoveryProducer.jobId(id));
      const res = await t.request('POST', `/api/v1/servers/${id}/discover`, { key: a.key });
      expect(res.status).toBe(202);
      expect(res.body.status).toBe('MCP_SERVER_CONNECTION_STATUS_DISCOVERING');
      expect(await queued(id)).toEqual({ serverId: id, trigger: 'manual', tenantId: a.tenantId });
    });

    it('lists the tools as last discovered, in order', async () => {
      expect((await t.request('GET', `/api/v1/servers/${id}/tools`, { key: a.key })).body).toEqual({ serverId: id, tools: [] });
      await t.runtime.prisma.tool.createMany({
        data: [
          { id: randomUUID(), serverId: id, name: 'b_second', inputSchema: { type: 'object' }, hash: 'h2', position: 1, title: 'Second' },
          { id: randomUUID(), serverId: id, name: 'a_first', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, hash: 'h1', position: 0, description: 'First', annotations: { readOnlyHint: true } },
        ],
      });
      const res = await t.request('GET', `/api/v1/servers/${id}/tools`, { key: a.key });
      expect(res.body.tools).toEqual([
        { name: 'a_first', description: 'First', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, annotations: { readOnlyHint: true } },
        { name: 'b_second', title: 'Second', inputSchema: { type: 'object' } },
      ]);
    });

    it('lists discovery runs newest first, paginated', async () => {
      const base = Date.now();
      await t.runtime.prisma.discoveryRun.createMany({
        data: [0, 1, 2].map((i) => ({ id: randomUUID(), serverId: id, trigger: 'manual', startedAt: new Date(base + i * 1000), outcome: 'SUCCEEDED' as const, toolCount: i, added: [`t${i}`] })),
      });
      const first = await t.request('GET', `/api/v1/servers/${id}/discoveries?pageSize=2`, { key: a.key });
      expect(first.status).toBe(200);
      expect(first.body.runs.map((r: { toolCount: number }) => r.toolCount)).toEqual([2, 1]);
      const second = await t.request('GET', `/api/v1/servers/${id}/discoveries?pageSize=2&pageToken=${first.body.nextPageToken}`, { key: a.key });
      expect(second.body.runs.map((r: { toolCount: number }) => r.toolCount)).toEqual([0]);
      expect(second.body.nextPageToken).toBeUndefined();
      expect(second.body.runs[0]).toMatchObject({ trigger: 'manual', outcome: 'SUCCEEDED', added: ['t0'], removed: [], changed: [], dropped: [] });
      expect(second.body.runs[0]).not.toHaveProperty('stderr');
    });

    it('deletes: 204, then 404', async () => {
      expect((await t.request('DELETE', `/api/v1/servers/${id}`, { key: a.key })).status).toBe(204);
      expectProblem(await t.request('GET', `/api/v1/servers/${id}`, { key: a.key }), 404);
      expectProblem(await t.request('DELETE', `/api/v1/servers/${id}`, { key: a.key }), 404);
    });

    it('answers 404 for a malformed id', async () => {
      expectProblem(await t.request('GET', '/api/v1/servers/not-a-uuid', { key: a.key }), 404);
    });

    it('audits each change with who and what, never a credential', async () => {
      const res = await t.request('GET', `/api/v1/audit?resourceId=${id}&pageSize=100`);
      const actions = res.body.events.map((e: { action: string }) => e.action);
      expect(actions).toEqual(expect.arrayContaining(['server.create', 'server.update', 'server.discover', 'server.delete']));
      for (const e of res.body.events) expect(e).toMatchObject({ actorType: 'tenant', actorId: a.keyId, tenantId: a.tenantId, resourceType: 'server' });
    });
  });

  describe('listing', () => {
    let c: TenantKey;
    beforeAll(async () => {
      c = await makeTenant(t);
      for (let i = 0; i < 7; i++) {
        await t.request('POST', '/api/v1/servers', { key: c.key, body: { name: `list-${i}`, transport: 'sse', url: 'https://list.example.com/sse', enabled: i % 2 === 0 } });
      }
    });

    const pageThrough = async (key: string, query: string, pageSize: number) => {
      const ids: string[] = [];
      let token: string | undefined;
      do {
        const res = await t.request('GET', `/api/v1/servers?pageSize=${pageSize}${query}${token ? `&pageToken=${token}` : ''}`, { key });
        expect(res.status).toBe(200);
        ids.push(...res.body.servers.map((s: { id: string }) => s.id));
        token = res.body.nextPageToken;
      } while (token);
      return ids;
    };

    it("shows a tenant the platform's servers and its own only", async () => {
      const res = await t.request('GET', '/api/v1/servers?pageSize=100', { key: c.key });
      for (const s of res.body.servers) expect(s.tenantId === null || s.tenantId === c.tenantId).toBe(true);
      expect(res.body.servers.filter((s: { tenantId: string }) => s.tenantId === c.tenantId)).toHaveLength(7);
      expect(res.body.servers.filter((s: { tenantId: string }) => s.tenantId === null).length).toBeGreaterThan(0);
    });

    it('filters by kind and status, as names or numbers', async () => {
      for (const kind of ['MCP_SERVER_KIND_BUILT_IN', 'BUILT_IN', '2']) {
        const res = await t.request('GET', `/api/v1/servers?kind=${kind}&pageSize=100`, { key: c.key });
        expect(res.status).toBe(200);
        expect(res.body.servers.length).toBeGreaterThan(0);
        for (const s of res.body.servers) expect(s.kind).toBe('MCP_SERVER_KIND_BUILT_IN');
      }
      for (const status of ['MCP_SERVER_CONNECTION_STATUS_DISCONNECTED', '2']) {
        const res = await t.request('GET', `/api/v1/servers?status=${status}&kind=3&pageSize=100`, { key: c.key });
        expect(res.body.servers.map((s: { name: string }) => s.name).sort()).toEqual(['list-1', 'list-3', 'list-5']);
      }
      for (const q of ['kind=9', 'kind=MCP_SERVER_KIND_NOPE', 'status=0', 'status=', 'kind=1&kind=2', 'pageSize=0', 'pageSize=abc', 'pageSize=101', 'extra=1']) {
        const res = await t.request('GET', `/api/v1/servers?${q}`, { key: c.key });
        expectProblem(res, 400);
      }
    });

    it('finds by text, case-insensitively, with wildcards taken literally', async () => {
      const res = await t.request('GET', '/api/v1/servers?q=LIST-3', { key: c.key });
      expect(res.body.servers.map((s: { name: string }) => s.name)).toEqual(['list-3']);
      expect((await t.request('GET', '/api/v1/servers?q=%25', { key: c.key })).body.servers).toEqual([]);
      expect((await t.request('GET', '/api/v1/servers?q=list_', { key: c.key })).body.servers).toEqual([]);
      await t.request('POST', '/api/v1/servers', { key: c.key, body: { name: 'odd_100%', transport: 'sse', url: 'https://o.example.com' } });
      const odd = await t.request('GET', `/api/v1/servers?q=${encodeURIComponent('D_100%')}`, { key: c.key });
      expect(odd.body.servers.map((s: { name: string }) => s.name)).toEqual(['odd_100%']);
    });

    it('pages stably: every server once, in order, even with inserts between pages', async () => {
      const all = await pageThrough(c.key, '', 100);
      const paged: string[] = [];
      let token: string | undefined;
      let inserted = 0;
      do {
        const res = await t.request('GET', `/api/v1/servers?pageSize=3${token ? `&pageToken=${token}` : ''}`, { key: c.key });
        paged.push(...res.body.servers.map((s: { id: string }) => s.id));
        token = res.body.nextPageToken;
        await t.request('POST', '/api/v1/servers', { key: c.key, body: { name: `inserted-${inserted++}`, transport: 'sse', url: 'https://i.example.com' } });
      } while (token);
      expect(new Set(paged).size).toBe(paged.length);
      expect(paged.slice(0, all.length)).toEqual(all);
      expect(paged.length).toBeGreaterThanOrEqual(all.length);
    });

    it('refuses a page token of another list', async () => {
      const tenants = await t.request('GET', '/api/v1/tenants?pageSize=1');
      expectProblem(await t.request('GET', `/api/v1/servers?pageToken=${tenants.body.nextPageToken}`, { key: c.key }), 400);
    });
  });
});
