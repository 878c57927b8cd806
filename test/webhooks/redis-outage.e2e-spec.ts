import { freePort } from '../fixtures/net';
import { startRedisProxy, TcpProxy } from '../fixtures/tcp-proxy';
import { startWebhookReceiver, WebhookReceiver } from '../fixtures/webhook-receiver';
import { startTestApp, TestApp } from '../support/app';
import { redisUrl } from '../support/database';
import { registerServer, settled, waitFor } from '../support/servers';
import { makeTenant } from '../support/tenants';

/**
 * Redis taken away from one registry (a proxy of the test's own; the shared Redis is never touched): an event made
 * meanwhile becomes a delivery row at once, its job cannot be queued, and once Redis is back the webhook sweep
 * queues it from the row and it is delivered.
 */
(redisUrl() ? describe : describe.skip)('webhook deliveries through a Redis outage (needs TEST_REDIS_URL)', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let r: WebhookReceiver;

  beforeAll(async () => {
    proxy = await startRedisProxy(redisUrl()!);
    t = await startTestApp({ env: { REDIS_URL: `redis://${proxy.address}`, MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1' } });
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await t?.close();
    await proxy?.close();
    await r?.close();
  });

  it('keeps the delivery in its row while the queue is away and delivers it once Redis is back', async () => {
    const tenant = await makeTenant(t);
    const created = await t.request('POST', '/api/v1/webhooks', { key: tenant.key, body: { url: r.url, events: ['server.status_changed'] } });
    r.setSecret(created.body.secret);
    const { id } = await registerServer(t, { name: 'nothing-listens', transport: 'streamable-http', url: `http://127.0.0.1:${await freePort()}/mcp` }, tenant.key);
    await settled(t, id);
    await waitFor('the first delivery', async () => r.verified().length === 1);

    await proxy.cut();
    await waitFor('the queue to be seen away', async () => !t.runtime.queue.available);
    // The change itself, in the database: the event is written with it by the trigger, whatever the queue does.
    await t.runtime.sql.query(`UPDATE servers SET status = 'DISCONNECTED', status_reason = NULL WHERE id = $1::uuid`, [id]);
    const waiting = await waitFor('the delivery row', async () => {
      const list = (await t.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { key: tenant.key })).body.deliveries;
      return list.length === 2 ? list[0] : undefined;
    });
    expect(waiting).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect(r.requests()).toBe(1);
    expect(t.logs()).toContain('webhook deliveries could not be queued; the sweep will');

    await proxy.restore();
    await waitFor('the delivery after the outage', async () => r.verified().length === 2, 60_000);
    expect(r.verified()[1].payload.data).toMatchObject({ serverId: id, status: 'MCP_SERVER_CONNECTION_STATUS_DISCONNECTED', previousStatus: 'MCP_SERVER_CONNECTION_STATUS_ERROR' });
    expect(r.rejected()).toEqual([]);
  }, 120_000);
});
