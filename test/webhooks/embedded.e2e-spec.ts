import { freePort } from '../fixtures/net';
import { startWebhookReceiver, WebhookReceiver } from '../fixtures/webhook-receiver';
import { useTestApp } from '../support/app';
import { registerServer, waitFor } from '../support/servers';
import { makeTenant } from '../support/tenants';

/** `npm start` with no environment: the embedded PostgreSQL (PGlite), the queue in it (BullMQ's PostgreSQL backend). */
describe('webhooks on the embedded defaults', () => {
  const t = useTestApp({ embedded: true, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1', WEBHOOK_BACKOFF_MS: '300' } });
  let r: WebhookReceiver;

  beforeAll(async () => {
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    await r?.close();
  });

  it('delivers a signed status_changed event through the queue in the database, retrying a failed attempt', async () => {
    expect(t.runtime.queue.kind).toBe('postgres');
    expect(t.runtime.embedded).toBeDefined();
    const tenant = await makeTenant(t);
    r.answer((n) => (n === 1 ? { answer: 500, body: 'try later' } : { answer: 200 }));
    const created = await t.request('POST', '/api/v1/webhooks', { key: tenant.key, body: { url: r.url, events: ['server.status_changed'] } });
    expect(created.status).toBe(201);
    r.setSecret(created.body.secret);
    const { id } = await registerServer(t, { name: 'nothing-listens', transport: 'streamable-http', url: `http://127.0.0.1:${await freePort()}/mcp` }, tenant.key);
    await waitFor('the delivery', async () => r.verified().length === 1, 60_000);
    expect(r.verified()[0].payload).toMatchObject({ type: 'server.status_changed', data: { serverId: id, status: 'MCP_SERVER_CONNECTION_STATUS_ERROR', previousStatus: null } });
    const done = await waitFor('the delivery recorded', async () => {
      const [d] = (await t.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { key: tenant.key })).body.deliveries;
      return d?.status === 'delivered' ? d : undefined;
    });
    expect(done.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 200]);
    expect(done.attempts[0].error).toBe('the receiver answered 500: try later');
  }, 120_000);
});
