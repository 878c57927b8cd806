import { freePort } from '../fixtures/net';
import { startWebhookReceiver, WebhookReceiver } from '../fixtures/webhook-receiver';
import { startTestApp, TestApp } from '../support/app';
import { registerServer, waitFor } from '../support/servers';
import { makeTenant } from '../support/tenants';
import { startWorkerProcess, WorkerProcess } from '../support/worker-process';

/**
 * The delivery rows are the truth: a worker killed (SIGKILL, no shutdown) while its receiver has the request
 * leaves the delivery claimed under a lease; the next worker finds the lease run out, records the attempt as
 * interrupted and delivers.
 */
describe('a webhook delivery survives a worker killed in the middle of it', () => {
  let t: TestApp;
  let r: WebhookReceiver;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    t = await startTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const w of workers) await w.kill();
    await t?.close();
    await r?.close();
  });

  function worker(): WorkerProcess {
    const w = startWorkerProcess(t, {
      MCP_OUTBOUND_ALLOW: '127.0.0.1',
      DISCOVERY_ATTEMPTS: '1',
      DISCOVERY_TIMEOUT_MS: '3000',
      WEBHOOK_TIMEOUT_MS: '6000',
      WEBHOOK_BACKOFF_MS: '500',
      ...(t.config.redisUrl ? { REDIS_URL: t.config.redisUrl } : {}),
    });
    workers.push(w);
    return w;
  }

  it('delivers after a restart, the killed attempt recorded as interrupted', async () => {
    const first = worker();
    await first.waitFor(/worker ready/);
    const tenant = await makeTenant(t);
    // The first request is held by the receiver (the worker is mid-delivery when it dies); later ones are answered.
    r.answer((n) => (n === 1 ? { hang: true } : { answer: 200 }));
    const created = await t.request('POST', '/api/v1/webhooks', { key: tenant.key, body: { url: r.url, events: ['server.status_changed'] } });
    expect(created.status).toBe(201);
    r.setSecret(created.body.secret);
    await registerServer(t, { name: 'unreachable', transport: 'streamable-http', url: `http://127.0.0.1:${await freePort()}/mcp` }, tenant.key);

    await r.waitForRequests(1, 60_000);
    await first.kill();
    const [held] = (await t.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { key: tenant.key })).body.deliveries;
    expect(held).toMatchObject({ status: 'pending', attemptCount: 0, attempts: [] });

    const second = worker();
    await second.waitFor(/worker ready/);
    await waitFor('the delivery by the restarted worker', async () => r.verified().length === 1, 60_000);
    expect(r.verified()[0].payload).toMatchObject({ type: 'server.status_changed', data: { name: 'unreachable', status: 'MCP_SERVER_CONNECTION_STATUS_ERROR' } });
    expect(r.rejected()).toEqual([]);
    // The receiver answers before the worker records the answer.
    const done = await waitFor('the delivery recorded', async () => {
      const [d] = (await t.request('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { key: tenant.key })).body.deliveries;
      return d.status === 'pending' ? undefined : d;
    });
    expect(done).toMatchObject({ status: 'delivered', attemptCount: 2, lastStatusCode: 200 });
    expect(done.attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: null, error: 'interrupted: the worker sending it stopped before the receiver answered' }),
      expect.objectContaining({ attempt: 2, statusCode: 200, error: null }),
    ]);
    const key = created.body.secret.slice('whsec_'.length);
    for (const out of [first.output(), second.output(), t.logs()]) expect(out.includes(key)).toBe(false);
  }, 120_000);
});
