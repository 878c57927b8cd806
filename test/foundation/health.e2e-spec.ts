import { useTestApp } from '../support/app';
import { redisUrl } from '../support/database';

describe('health, docs and errors', () => {
  const t = useTestApp({ worker: false });

  it('answers liveness and readiness with the database and queue reachable', async () => {
    const live = await t.request('GET', '/health/live', { key: null });
    expect(live.status).toBe(200);
    const ready = await t.request('GET', '/health/ready', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'up', queue: 'up', toolCatalog: 'loaded' });
    expect(ready.body.queueBackend).toBe(redisUrl() ? 'redis' : 'postgres');
  });

  it('serves the OpenAPI document and Swagger UI', async () => {
    const json = await t.request('GET', '/docs-json', { key: null });
    expect(json.status).toBe(200);
    expect(json.body.openapi).toMatch(/^3\./);
    expect(Object.keys(json.body.paths)).toContain('/health/ready');
    const ui = await t.request('GET', '/docs', { key: null });
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('answers an unknown route with a problem document and a request id', async () => {
    const res = await t.request('GET', '/no/such/route', { key: null });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 404, title: 'Not found' });
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
  });

  it('exposes Prometheus metrics', async () => {
    await t.request('GET', '/health/ready', { key: null });
    const res = await t.request('GET', '/metrics', { key: null });
    expect(res.status).toBe(200);
    expect(res.text).toContain('mcpr_http_requests_total');
    expect(res.text).toMatch(/mcpr_servers\{status="CONNECTED"\} \d+/);
  });

  it('logs every request line with its request id', async () => {
    await t.request('GET', '/health/ready', { key: null, headers: { 'x-request-id': 'trace-abc-123' } });
    const line = t
      .logs()
      .split('\n')
      .find((l) => l.includes('trace-abc-123'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!).req.id).toBe('trace-abc-123');
  });
});
