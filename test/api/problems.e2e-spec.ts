import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { PROBLEM_TITLES, PROBLEM_TYPES } from '../../apps/api/src/http/problem';
import { useTestApp } from '../support/app';
import { expectProblem, makeTenant, TenantKey } from '../support/tenants';

/** A raw request, for what fetch will not send (a request line and headers past the parser's limit). */
function rawGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ status: number; type: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('problem documents: one type scheme, one message per field', () => {
  const t = useTestApp({ worker: false });
  let a: TenantKey;
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8');

  beforeAll(async () => {
    a = await makeTenant(t);
  });

  it('names every problem type /problems/<slug> with its one title, each documented in docs/errors.md', async () => {
    const seen = new Map<number, string>();
    const record = (res: { status: number; body: any; headers: Headers }) => {
      expectProblem(res, res.status);
      // Domain errors, the framework's refusals and the body parser's alike.
      expect(res.body.title).toBe(PROBLEM_TITLES[res.status]);
      seen.set(res.status, res.body.type);
    };
    record(await t.request('POST', '/api/v1/tenants', { body: {} }));
    record(await t.request('GET', '/api/v1/servers', { key: 'mcpr_wrong' }));
    record(await t.request('GET', '/api/v1/tenants', { key: a.key }));
    record(await t.request('GET', '/api/v1/servers/0190a3c0-0000-7000-8000-000000000000'));
    record(await t.request('GET', '/mcp'));
    record(await t.request('DELETE', '/mcp'));
    await t.request('POST', '/api/v1/tenants', { body: { name: 'twice' } });
    record(await t.request('POST', '/api/v1/tenants', { body: { name: 'twice' } }));
    record(await t.request('POST', '/api/v1/tenants', { rawBody: JSON.stringify({ name: 'x'.repeat(1_100_000) }) }));
    record(await t.request('POST', '/api/v1/tenants', { rawBody: '{"name":"x"}', headers: { 'content-type': 'text/plain' } }));
    record(await t.request('POST', '/api/v1/integrations', { key: a.key, body: { appSlug: 'slack' } }));
    expect([...seen.keys()].sort()).toEqual([400, 401, 403, 404, 405, 406, 409, 413, 415, 422].filter((s) => seen.has(s)));
    expect(seen.size).toBeGreaterThanOrEqual(8);
    for (const [status, type] of seen) {
      expect(type).toBe(`/problems/${PROBLEM_TYPES[status]}`);
    }
    // Every type the registry can answer is on the errors page, with its status and title.
    for (const [status, slug] of Object.entries(PROBLEM_TYPES)) {
      expect(doc).toMatch(new RegExp(`\\| \`/problems/${slug}\` \\| ${status} \\| ${PROBLEM_TITLES[Number(status)]} \\|`));
    }
  });

  it('answers what the HTTP parser refuses (headers too large) with a problem document too', async () => {
    const res = await rawGet(t.baseUrl, '/api/v1/servers', { authorization: `Bearer ${a.key}`, 'x-padding': 'x'.repeat(20_000) });
    expect(res.status).toBe(431);
    expect(res.type).toBe('application/problem+json');
    expect(res.body).toMatchObject({ type: '/problems/request-header-fields-too-large', title: PROBLEM_TITLES[431], status: 431 });
  });

  it('gives one message per field: "is required" for a missing one, the type rule for a wrong type', async () => {
    const missing = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { key: a.key, body: {} });
    expectProblem(missing, 400);
    expect(missing.body.errors).toEqual([{ field: 'serverId', message: 'is required' }]);
    expect(missing.body.detail).toBe('serverId: is required');

    const call = await t.request('POST', '/api/v1/llm/mcp-call-tool', { key: a.key, body: { toolName: 5 } });
    expect(call.body.errors).toEqual([
      { field: 'serverId', message: 'is required' },
      { field: 'toolName', message: 'must be a string' },
    ]);

    const server = await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 7, transport: 'sse', url: 'https://x.example.com', credentials: { bearerToken: 3 } } });
    expectProblem(server, 400);
    expect(server.body.errors).toEqual([
      { field: 'name', message: 'must be a string' },
      { field: 'credentials.bearerToken', message: 'must be a string' },
    ]);
    const fields = server.body.errors.map((e: { field: string }) => e.field);
    expect(new Set(fields).size).toBe(fields.length);
  });
});
