import { PROBLEM_TYPES } from '../../apps/api/src/http/problem';
import { useTestApp } from '../support/app';

interface Media {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

/** The examples a media type object of the document carries. */
function examplesOf(media: Media | undefined): unknown[] {
  if (!media) return [];
  return [...(media.example !== undefined ? [media.example] : []), ...Object.values(media.examples ?? {}).map((e) => e.value)];
}

describe('the OpenAPI document (/docs-json) a new user reads', () => {
  const t = useTestApp({ worker: false });
  let doc: any;
  const ops: { where: string; op: any }[] = [];

  beforeAll(async () => {
    doc = (await t.request('GET', '/docs-json', { key: null })).body;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) ops.push({ where: `${method.toUpperCase()} ${path}`, op });
    }
  });

  it('gives every request body at least one example, and a body example for every success that has a body', () => {
    const missing: string[] = [];
    for (const { where, op } of ops) {
      const body = op.requestBody?.content?.['application/json'];
      if (op.requestBody && examplesOf(body).length === 0) missing.push(`${where}: request`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!/^2/.test(status) || !response.content) continue;
        const withExample = Object.values<Media>(response.content).some((m) => examplesOf(m).length > 0);
        if (!withExample) missing.push(`${where}: ${status} response`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('describes every path parameter', () => {
    const missing = ops.flatMap(({ where, op }) =>
      (op.parameters ?? []).filter((p: any) => p.in === 'path' && !(typeof p.description === 'string' && p.description.length > 10)).map((p: any) => `${where}: ${p.name}`),
    );
    expect(missing).toEqual([]);
  });

  it('shows, for every documented error status, an example problem of that status and its type', () => {
    const wrong: string[] = [];
    for (const { where, op } of ops) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        if (response.content && !response.content['application/problem+json']) {
          // An answer that is not a problem (readiness says which dependency is down) still shows an example.
          if (!Object.values<Media>(response.content).some((m) => examplesOf(m).length > 0)) wrong.push(`${where}: ${status} has no example`);
          continue;
        }
        const examples = examplesOf(response.content?.['application/problem+json']) as { status?: number; type?: string; title?: string; detail?: string }[];
        if (examples.length === 0) {
          wrong.push(`${where}: ${status} has no example`);
          continue;
        }
        for (const e of examples) {
          if (e.status !== Number(status)) wrong.push(`${where}: the ${status} example says ${e.status}`);
          if (e.type !== `/problems/${PROBLEM_TYPES[Number(status)]}`) wrong.push(`${where}: the ${status} example has type ${e.type}`);
          if (!e.title || !e.detail) wrong.push(`${where}: the ${status} example has no title or detail`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('describes its security scheme as an API key sent as a bearer token, not a JWT', () => {
    const schemes = Object.values<any>(doc.components.securitySchemes);
    expect(schemes).toHaveLength(1);
    expect(schemes[0]).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes[0].bearerFormat).not.toBe('JWT');
    expect(schemes[0].description).toMatch(/API key/);
  });

  it('offers request examples that the API accepts as they are (a registration sets url or command, never both)', async () => {
    const servers = examplesOf(doc.paths['/api/v1/servers'].post.requestBody.content['application/json']) as Record<string, unknown>[];
    expect(servers.length).toBeGreaterThanOrEqual(2);
    for (const e of servers) expect('url' in e && 'command' in e).toBe(false);
    // Each example of a body that creates something is valid input: sent as it is, it is not refused as invalid.
    const tenant = await t.request('POST', '/api/v1/tenants', { body: examplesOf(doc.paths['/api/v1/tenants'].post.requestBody.content['application/json'])[0] });
    expect(tenant.status).toBe(201);
    for (const e of servers) {
      const res = await t.request('POST', '/api/v1/servers', { body: e });
      expect({ example: e, status: res.status, detail: res.body.detail }).toEqual({ example: e, status: 201, detail: undefined });
    }
  });
});
