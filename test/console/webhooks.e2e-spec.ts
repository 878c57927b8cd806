/// <reference lib="dom" />
// The page.evaluate callbacks run in the browser: they need the DOM types.
import { freePort } from '../fixtures/net';
import { startWebhookReceiver, WebhookReceiver } from '../fixtures/webhook-receiver';
import { makeTenant, registerServer, settled, waitFor } from '../support/servers';
import { signIn } from './browser';
import { ConsoleHarness, describeBrowser, expectFitsPhone, expectInert, expectText, recordBodies, shot, startConsole } from './harness';

describeBrowser('console in Chromium: webhooks', () => {
  let h: ConsoleHarness;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // Quick retries, so that a failing receiver's attempts show within the test.
    [h, receiver] = await Promise.all([startConsole({ WEBHOOK_BACKOFF_MS: '300', WEBHOOK_ATTEMPTS: '3', WEBHOOK_TIMEOUT_MS: '3000' }), startWebhookReceiver()]);
  });
  afterAll(() => Promise.all([receiver?.close(), h?.close()]));

  it('makes a webhook whose secret is shown once with a copy button, lists its signed deliveries and failed attempts, rotates the secret and disables it', async () => {
    const tenant = await makeTenant(h.t, 'webhooks-tenant');
    const { id: serverId } = await registerServer(h.t, { name: 'watched', transport: 'streamable-http', url: `http://127.0.0.1:${await freePort()}/mcp` }, tenant.key);
    await settled(h.t, serverId);
    const page = await signIn(h.context, h.t.baseUrl, tenant.key);
    const bodies = recordBodies(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    // A refused URL: the API's field error beside the field.
    await page.getByLabel('Receiver URL').fill('ftp://example.test/hook');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expectText(page.locator('.field', { has: page.getByLabel('Receiver URL') }).locator('.field-error'), /\S/);
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByLabel(/server\.tools_changed/).check();
    await page.getByLabel('Description (optional)').fill('Tell the on-call engineer');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.setSecret(secret);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await shot(page, 'webhook-new');
    await page.getByRole('button', { name: 'I have kept it: hide it' }).click();
    expect(await page.getByLabel('Signing secret').count()).toBe(0);
    await expectText(page.locator('table.webhooks tbody'), /server\.status_changed.*server\.tools_changed.*enabled/s);

    // An event: a delivery, verified by the receiver with the standardwebhooks package, listed as delivered.
    await page.locator('table.webhooks tbody a').first().click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    await h.t.request('PATCH', `/api/v1/servers/${serverId}`, { key: tenant.key, body: { enabled: false } });
    await expectText(page.locator('table.deliveries tbody'), /server\.status_changed.*delivered/s, 20_000);
    expect(receiver.verified().length).toBeGreaterThanOrEqual(1);
    expect(receiver.rejected()).toEqual([]);

    // A receiver that fails: each attempt listed with the status it answered, then the delivery failed.
    receiver.answer({ answer: 500, body: '<img src=x onerror="window.__pwned=1">' });
    await h.t.request('PATCH', `/api/v1/servers/${serverId}`, { key: tenant.key, body: { enabled: true } });
    const failing = page.locator('table.deliveries tbody tr').first();
    await expectText(failing, /failed/, 30_000);
    await failing.locator('details > summary').click();
    await expectText(failing.locator('.attempts'), /500/);
    await expectText(page.locator('.title-row .badge'), /failing/, 10_000);
    await expectInert(page, h.dialogs);
    await shot(page, 'webhook');

    // A new secret, shown once; deliveries are signed with it from now on.
    receiver.answer({ answer: 200 });
    await page.getByRole('button', { name: 'New secret' }).click();
    await page.getByRole('button', { name: 'Yes, new secret' }).click();
    const rotated = await page.getByLabel('New signing secret').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    receiver.setSecret(rotated);
    await page.getByRole('button', { name: 'I have kept it: hide it' }).click();
    await page.getByRole('button', { name: 'Disable' }).click();
    await expectText(page.locator('.title-row .badge'), /disabled/);
    // Neither secret ever came back in an answer the page read, but the two that made them.
    expect((await bodies.read()).filter((b) => b.method === 'GET' && (b.body.includes(secret) || b.body.includes(rotated)))).toEqual([]);
    expect(await page.content()).not.toContain(rotated);
    await expectFitsPhone(page);
    await page.close();
    // Another tenant's key does not see it.
    const other = await makeTenant(h.t, 'webhooks-other');
    await waitFor('the list', async () => (await h.t.request('GET', '/api/v1/webhooks', { key: other.key })).status === 200);
    expect((await h.t.request('GET', '/api/v1/webhooks', { key: other.key })).body.webhooks).toEqual([]);
  });
});
