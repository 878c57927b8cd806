import { ApiKeyRepository } from '@app/database';
import { AuthService } from '../../apps/api/src/auth/auth.service';
import { startTestApp, useTestApp } from '../support/app';
import { waitFor } from '../support/servers';
import { expectProblem, makeTenant } from '../support/tenants';

describe('authentication, tenants and keys', () => {
  const t = useTestApp({ worker: false });

  it('answers 401 without a key, with a malformed header and with an unknown key', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Basic abc' }, { authorization: 'Bearer' }, { authorization: 'Bearer mcpr_nope' }]) {
      const res = await t.request('GET', '/api/v1/servers', { key: null, headers });
      expectProblem(res, 401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
    }
  });

  it('leaves health, docs and metrics open', async () => {
    for (const path of ['/health/live', '/health/ready', '/api/v1/health/live', '/docs-json', '/metrics']) {
      expect((await t.request('GET', path, { key: null })).status).toBe(200);
    }
  });

  it('creates tenants and keys; a key is shown once and works at once', async () => {
    const created = await t.request('POST', '/api/v1/tenants', { body: { name: 'acme' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'acme',
      createdAt: expect.any(String),
      limits: expect.objectContaining({ maxServers: expect.any(Number) }),
      customLimits: {},
    });
    const key = await t.request('POST', `/api/v1/tenants/${created.body.id}/api-keys`, { body: {} });
    expect(key.status).toBe(201);
    expect(key.body.key).toMatch(/^mcpr_[A-Za-z0-9_-]{43}$/);
    const listed = await t.request('GET', `/api/v1/tenants/${created.body.id}/api-keys`);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(key.body.key);
    expect(listed.body.apiKeys[0]).toMatchObject({ id: key.body.id, prefix: key.body.key.slice(0, 11), revokedAt: null });
    const asTenant = await t.request('GET', '/api/v1/servers', { key: key.body.key });
    expect(asTenant.status).toBe(200);
  });

  it('refuses a duplicate tenant name with 409', async () => {
    await t.request('POST', '/api/v1/tenants', { body: { name: 'dup' } });
    expectProblem(await t.request('POST', '/api/v1/tenants', { body: { name: 'dup' } }), 409);
  });

  it('answers 404 for keys of an unknown tenant and for an unknown key id', async () => {
    expectProblem(await t.request('POST', '/api/v1/tenants/7d0c1a3e-9a55-4c2e-8f0e-2a7c1f6d9b10/api-keys', { body: {} }), 404);
    expectProblem(await t.request('POST', '/api/v1/tenants/not-a-uuid/api-keys', { body: {} }), 404);
    expectProblem(await t.request('DELETE', '/api/v1/api-keys/7d0c1a3e-9a55-4c2e-8f0e-2a7c1f6d9b10'), 404);
  });

  it('gives a tenant 403 on every admin-only action', async () => {
    const a = await makeTenant(t);
    const calls: [string, string, unknown?][] = [
      ['POST', '/api/v1/tenants', { name: 'x' }],
      ['GET', '/api/v1/tenants'],
      ['POST', `/api/v1/tenants/${a.tenantId}/api-keys`, {}],
      ['GET', `/api/v1/tenants/${a.tenantId}/api-keys`],
      ['DELETE', `/api/v1/api-keys/${a.keyId}`],
      ['GET', '/api/v1/audit'],
    ];
    for (const [method, path, body] of calls) expectProblem(await t.request(method, path, { key: a.key, body }), 403);
    expect((await t.request('GET', '/api/v1/servers', { key: a.key })).status).toBe(200);
  });

  it('stops a revoked key at once, and revoking twice is a no-op', async () => {
    const a = await makeTenant(t);
    expect((await t.request('GET', '/api/v1/servers', { key: a.key })).status).toBe(200);
    expect((await t.request('DELETE', `/api/v1/api-keys/${a.keyId}`)).status).toBe(204);
    expectProblem(await t.request('GET', '/api/v1/servers', { key: a.key }), 401);
    expect((await t.request('DELETE', `/api/v1/api-keys/${a.keyId}`)).status).toBe(204);
  });

  it('stops a key revoked on another replica within a second or two', async () => {
    const a = await makeTenant(t);
    const replica = await startTestApp({ worker: false, database: t.database, queuePrefix: t.queuePrefix });
    try {
      expect((await replica.request('GET', '/api/v1/servers', { key: a.key })).status).toBe(200);
      expect((await t.request('DELETE', `/api/v1/api-keys/${a.keyId}`)).status).toBe(204);
      const revokedAt = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - revokedAt < 5000) {
        status = (await replica.request('GET', '/api/v1/servers', { key: a.key })).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThan(2000);
    } finally {
      await replica.close();
    }
  });

  it('looks a key up once for many requests at once, and again in the background while it is in use', async () => {
    const tenant = await makeTenant(t);
    const repo = t.app.get(ApiKeyRepository);
    const auth = t.app.get(AuthService);
    const findActiveByHash = repo.findActiveByHash.bind(repo);
    // The first lookup is held until all 40 requests have asked for the key, so that "at once" does not depend
    // on how fast a loaded machine sends them; the lookup itself still reads PostgreSQL.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const lookups = jest.spyOn(repo, 'findActiveByHash').mockImplementation(async (hash) => {
      await held;
      return findActiveByHash(hash);
    });
    const asked = jest.spyOn(auth, 'authenticate');
    try {
      const answering = Promise.all(Array.from({ length: 40 }, () => t.request('GET', '/api/v1/servers?pageSize=1', { key: tenant.key })));
      await waitFor('40 requests asking for the key', async () => asked.mock.calls.length >= 40, 30_000, 10);
      release();
      const answers = await answering;
      expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
      expect(lookups).toHaveBeenCalledTimes(1);
      // Past half its life, a request is answered from the entry and starts one lookup in the background for all of them.
      await new Promise((r) => setTimeout(r, 600));
      await Promise.all(Array.from({ length: 10 }, () => t.request('GET', '/api/v1/servers?pageSize=1', { key: tenant.key })));
      await waitFor('the second lookup', async () => lookups.mock.calls.length >= 2, 5_000, 10);
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      lookups.mockRestore();
      asked.mockRestore();
    }
  });

  it('paginates tenants with a stable token', async () => {
    for (let i = 0; i < 5; i++) await t.request('POST', '/api/v1/tenants', { body: { name: `page-${i}` } });
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const res = await t.request('GET', `/api/v1/tenants?pageSize=2${token ? `&pageToken=${token}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.tenants.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.tenants.map((x: { id: string }) => x.id));
      token = res.body.nextPageToken;
    } while (token);
    expect(new Set(seen).size).toBe(seen.length);
    const all = await t.request('GET', '/api/v1/tenants?pageSize=100');
    expect(seen).toEqual(all.body.tenants.map((x: { id: string }) => x.id));
    expectProblem(await t.request('GET', '/api/v1/tenants?pageSize=101'), 400);
    expectProblem(await t.request('GET', '/api/v1/tenants?pageToken=garbage'), 400);
  });

  it('records every change in the audit log, for the admin', async () => {
    const a = await makeTenant(t, 'audited');
    const res = await t.request('GET', `/api/v1/audit?tenantId=${a.tenantId}`);
    expect(res.status).toBe(200);
    const actions = res.body.events.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['api-key.create', 'tenant.create']);
    expect(res.body.events[0]).toMatchObject({ actorType: 'admin', actorId: 'admin', resourceType: 'api-key', resourceId: a.keyId });
  });
});

describe('API documentation', () => {
  const t = useTestApp({ worker: false });

  it('documents every registry endpoint with its answer, its problems and the bearer key', async () => {
    const doc = (await t.request('GET', '/docs-json', { key: null })).body;
    const expected: [string, string, string][] = [
      ['post', '/api/v1/tenants', '201'],
      ['get', '/api/v1/tenants', '200'],
      ['post', '/api/v1/tenants/{tenantId}/api-keys', '201'],
      ['get', '/api/v1/tenants/{tenantId}/api-keys', '200'],
      ['delete', '/api/v1/api-keys/{id}', '204'],
      ['post', '/api/v1/servers', '201'],
      ['get', '/api/v1/servers', '200'],
      ['get', '/api/v1/servers/{id}', '200'],
      ['patch', '/api/v1/servers/{id}', '200'],
      ['delete', '/api/v1/servers/{id}', '204'],
      ['post', '/api/v1/servers/{id}/discover', '202'],
      ['get', '/api/v1/servers/{id}/tools', '200'],
      ['get', '/api/v1/servers/{id}/discoveries', '200'],
      ['post', '/api/v1/integrations', '201'],
      ['get', '/api/v1/audit', '200'],
      ['post', '/api/v1/llm/mcp-get-server-info', '200'],
      ['post', '/api/v1/llm/mcp-list-servers', '200'],
    ];
    for (const [method, path, ok] of expected) {
      const op = doc.paths[path]?.[method];
      expect({ method, path, documented: Boolean(op) }).toEqual({ method, path, documented: true });
      expect(op.summary).toEqual(expect.any(String));
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining([ok, '401']));
      for (const [status, response] of Object.entries(op.responses) as [string, { content?: Record<string, unknown> }][]) {
        if (Number(status) >= 400) expect(Object.keys(response.content ?? {})).toEqual(['application/problem+json']);
      }
    }
    const info = doc.components.schemas.McpServerInfoDto;
    expect(Object.keys(info.properties).sort()).toEqual(['availableTools', 'capabilities', 'kind', 'metadata', 'name', 'serverId', 'status', 'version']);
  });
});

describe('authentication before routing', () => {
  const t = useTestApp({ worker: false });

  it('answers 401 on an unknown /api/v1 path without a key, 404 with one', async () => {
    expectProblem(await t.request('GET', '/api/v1/no-such-thing', { key: null }), 401);
    expectProblem(await t.request('GET', '/api/v1/no-such-thing'), 404);
  });
});
