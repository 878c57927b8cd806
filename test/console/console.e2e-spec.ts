/// <reference lib="dom" />
// The page.evaluate callbacks run in the browser: they need the DOM types.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { BrowserContext } from 'playwright-core';
import { AuthorizationServer, consentAs, ProtectedMcpServer, startAuthorizationServer, startProtectedMcpServer } from '../fixtures/oauth/oauth-fixtures';
import { RawServer, startRawServer } from '../fixtures/raw-mcp-server';
import { EVERYTHING_ENTRY } from '../fixtures/reference-servers';
import type { TestApp } from '../support/app';
import { makeTenant, registerServer, settled } from '../support/servers';
import { signIn } from './browser';
import { ConsoleHarness, describeBrowser, expectInert, expectText, recordBodies, shot, startConsole, XSS_IMG, XSS_URL } from './harness';

const ROOT = join(__dirname, '..', '..');

describeBrowser('console in Chromium', () => {
  let h: ConsoleHarness;
  let t: TestApp;
  let context: BrowserContext;
  let dialogs: string[];
  let hostile: RawServer;
  let tenantServer: RawServer;
  let richServer: RawServer | undefined;
  let publicUrl: string;
  let as: AuthorizationServer | undefined;
  let protectedServer: ProtectedMcpServer | undefined;

  beforeAll(async () => {
    h = await startConsole();
    ({ t, context, publicUrl, dialogs } = h);
    tenantServer = await startRawServer({ name: 'tenant-fixture', onToolsList: () => ({ result: { tools: [] } }) });
  });
  afterAll(async () => {
    await hostile?.close();
    await tenantServer?.close();
    await richServer?.close();
    await protectedServer?.close();
    await as?.close();
    await h?.close();
  });

  /** The console, signed in with the admin key. */
  const asAdmin = () => signIn(context, t.baseUrl, t.adminKey);
  /** The console signed in with the admin key, on the screen its navigation link `name` leads to. */
  const adminOn = async (name: string) => {
    const page = await asAdmin();
    await page.getByRole('link', { name }).click();
    return page;
  };

  it('serves the console at / with a strict CSP, hashed assets cached for a year and index.html revalidated', async () => {
    const index = await fetch(t.baseUrl + '/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await index.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((u) => u.startsWith('/assets/'));
    expect(assets.length).toBeGreaterThanOrEqual(2);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//); // nothing from another host
    expect(html).not.toMatch(/<script>(?!<\/script>)|<style>/); // no inline script or style
    for (const asset of assets) {
      const res = await fetch(t.baseUrl + asset);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    const missing = await fetch(t.baseUrl + '/assets/nothing-here-00000000.js');
    expect(missing.status).toBe(404);
    // The API's own paths are untouched.
    expect((await t.request('GET', '/api/v1/servers')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/servers', { key: null })).status).toBe(401);
    expect((await fetch(t.baseUrl + '/health/live')).status).toBe(200);
    expect((await fetch(t.baseUrl + '/metrics')).status).toBe(200);
    expect((await fetch(t.baseUrl + '/docs')).status).toBe(200);
    expect((await fetch(t.baseUrl + '/docs-json')).status).toBe(200);
  });

  it('types the console from the same OpenAPI document the API serves at /docs-json', async () => {
    const served = (await (await fetch(t.baseUrl + '/docs-json')).json()) as Record<string, unknown>;
    // The document the console's types were generated from at build time (apps/console/build.mjs).
    const built = JSON.parse(readFileSync(join(ROOT, 'apps', 'console', 'src', 'generated', 'openapi.json'), 'utf8')) as Record<string, unknown>;
    expect(built).toEqual(served);
  });

  it('refuses a wrong key with a clear message and keeps nothing', async () => {
    const page = await context.newPage();
    await page.goto(t.baseUrl + '/');
    await shot(page, 'sign-in', false);
    // With the keyboard alone: the field has the focus on load, Enter submits.
    await page.keyboard.type('mcpr_not_a_real_key_000000000000');
    await page.keyboard.press('Enter');
    await expectText(page.getByRole('alert'), /not accepted/);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    await page.close();
  });

  it('signs the admin in, registers server-everything over stdio through the form, and shows CONNECTED without a reload', async () => {
    const page = await asAdmin();
    // Landmarks a screen reader offers: banner, navigation, main.
    for (const role of ['banner', 'navigation', 'main'] as const) expect(await page.getByRole(role).count()).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toContain('mcpr.console.apiKey');
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
    await page.getByRole('link', { name: 'Register', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('everything');
    await page.getByLabel('Transport').selectOption('stdio');
    await page.getByLabel('Command').fill(process.execPath);
    await page.getByLabel('Arguments').fill(`${EVERYTHING_ENTRY}\nstdio`);
    await page.getByLabel('Labels').fill('team=platform\ntier=demo');
    await shot(page, 'register');
    await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { name: 'everything', level: 1 }).waitFor();
    await expectText(page.locator('.title-row .badge'), /^CONNECTED$/, 30_000);
    // No reload happened: the marker set on the document before registering is still there.
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    await expectText(page.locator('#tools-title'), /Tools \(\d+\)/);
    await page.locator('li[data-tool="get-sum"] > details > summary').click();
    await page.getByRole('heading', { name: 'Discovery history' }).waitFor();
    await expectText(page.locator('.changes').first(), /get-sum/);
    await shot(page, 'server');
    // The list shows it with its status, kind, transport and tool count.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Servers', exact: true }).click();
    const row = page.locator('table.servers tbody tr', { hasText: 'everything' });
    await expectText(row, /CONNECTED.*BUILT_IN.*stdio/s);
    await page.close();
  });

  it('calls a tool through a form generated from its input schema and shows the result as the model sees it', async () => {
    const page = await adminOn('everything');
    await page.locator('li[data-tool="get-sum"] > details > summary').click();
    await page.getByRole('link', { name: 'Try get-sum' }).click();
    await page.getByLabel(/^a/).fill('2');
    await page.getByLabel(/^b/).fill('40');
    await page.getByRole('button', { name: 'Call the tool' }).click();
    const result = page.getByTestId('tool-result');
    await expectText(result, /The sum of 2 and 40 is 42/);
    await expectText(result, /\d+ ms/);
    await expectText(result, /ok/);
    await shot(page, 'try-tool');
    // An image result is shown from its data, as an image.
    await page.goto(`${t.baseUrl}/#/servers/${await serverIdByName(t, 'everything')}/tools/get-tiny-image`);
    await page.getByRole('button', { name: 'Call the tool' }).click();
    const img = page.getByTestId('tool-result').locator('img');
    await img.waitFor();
    expect(await img.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(0);
    await page.close();
  });

  it('generates inputs for enums, booleans, integers, arrays and nested objects, and a JSON box for the rest', async () => {
    richServer = await startRawServer({
      name: 'rich-schemas',
      onToolsList: () => ({
        result: {
          tools: [
            {
              name: 'book_trip',
              description: 'Books a trip',
              inputSchema: {
                type: 'object',
                required: ['city', 'nights'],
                properties: {
                  city: { type: 'string', description: 'Where to' },
                  nights: { type: 'integer', minimum: 1 },
                  class: { type: 'string', enum: ['economy', 'business'] },
                  refundable: { type: 'boolean' },
                  guests: { type: 'array', items: { type: 'string' } },
                  contact: { type: 'object', properties: { email: { type: 'string' }, phone: { type: 'string' } }, required: ['email'] },
                  extra: { anyOf: [{ type: 'string' }, { type: 'number' }] },
                },
              },
            },
          ],
        },
      }),
    });
    const server = await registerServer(t, { name: 'rich', kind: 'BUILT_IN', transport: 'streamable-http', url: richServer.url });
    await settled(t, server.id);
    const page = await asAdmin();
    await page.goto(`${t.baseUrl}/#/servers/${server.id}/tools/book_trip`);
    await page.getByLabel(/^city/).fill('Lisbon');
    await page.getByLabel(/^nights/).fill('3');
    await page.getByLabel(/^class/).selectOption({ label: 'business' });
    await page.getByLabel(/^refundable/).check();
    await page.getByRole('button', { name: 'Add to guests' }).click();
    await page.getByRole('button', { name: 'Add to guests' }).click();
    await page.getByLabel(/^guests\[0\]/).fill('Ada');
    await page.getByLabel(/^guests\[1\]/).fill('Grace');
    await page.getByLabel(/^email/).fill('ada@example.test');
    await page.getByLabel(/^extra \(JSON\)/).fill('42');
    await shot(page, 'try-tool-form');
    await page.getByLabel('Edit the arguments as JSON').check();
    const args = JSON.parse(await page.getByLabel('Arguments (JSON object)').inputValue());
    expect(args).toEqual({ city: 'Lisbon', nights: 3, class: 'business', refundable: true, guests: ['Ada', 'Grace'], contact: { email: 'ada@example.test' }, extra: 42 });
    // The call goes through the API: this server has no tools/call, and its refusal is shown as the result.
    await page.getByRole('button', { name: 'Call the tool' }).click();
    await expectText(page.locator('[data-testid="tool-result"], .error').first(), /isError|Method not found|\(\d{3}\)/);
    await page.close();
  });

  it('finds tools from a task in plain words, with scores and servers, one click from trying one', async () => {
    const page = await adminOn('Search tools');
    await page.getByLabel('Task').fill('add two numbers together');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.locator('.result-item').first();
    await expectText(first, /get-sum/);
    await expectText(first, /\d\.\d{3}/);
    await shot(page, 'search');
    await first.getByRole('link', { name: /^Try / }).click();
    await page.getByRole('button', { name: 'Call the tool' }).waitFor();
    await page.close();
  });

  it("shows a tenant only its own servers and the platform's", async () => {
    const a = await makeTenant(t, 'console-tenant-a');
    const b = await makeTenant(t, 'console-tenant-b');
    await registerServer(t, { name: 'server-of-a', transport: 'streamable-http', url: tenantServer.url }, a.key);
    await registerServer(t, { name: 'server-of-b', transport: 'streamable-http', url: tenantServer.url }, b.key);
    const page = await signIn(context, t.baseUrl, a.key);
    const names = page.locator('table.servers tbody th a');
    await expectText(page.locator('table.servers tbody'), /server-of-a/);
    const shown = await names.allTextContents();
    expect(shown).toContain('server-of-a');
    expect(shown).toContain('everything');
    expect(shown).not.toContain('server-of-b');
    // No admin screens in the tenant's navigation.
    expect(await page.getByRole('link', { name: 'Tenants' }).count()).toBe(0);
    // A platform server: its tools, no actions, no history (the platform's).
    await page.getByRole('link', { name: 'everything', exact: true }).click();
    await expectText(page.locator('#tools-title'), /Tools \(1\d\)/);
    await expectText(page.locator('section', { has: page.locator('#history-title') }), /platform keeps the discovery history/);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await page.locator('.error').count()).toBe(0);
    // Its own server: actions and history.
    await page.goBack();
    await page.getByRole('link', { name: 'server-of-a', exact: true }).click();
    await page.getByRole('button', { name: 'Delete' }).waitFor();
    await expectText(page.locator('section', { has: page.locator('#history-title') }), /registered/);
    // Signing out forgets the key.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    await page.close();
  });

  it("renders a hostile server's strings as inert text: no markup parsed, no script run, no javascript: link", async () => {
    const description = `Reads a file. ${XSS_IMG} See [docs](${XSS_URL}) or ${XSS_URL}`;
    hostile = await startRawServer({
      name: `evil ${XSS_IMG}`,
      onInitialize: (req) => ({
        result: {
          protocolVersion: (req.params?.protocolVersion as string) ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: `evil ${XSS_IMG}`, title: `<script>window.__pwned=1</script>`, version: '6.6.6' },
          instructions: `Use me. ${XSS_IMG} <a href="${XSS_URL}">click</a>`,
        },
      }),
      onToolsList: () => ({
        result: {
          tools: [
            {
              name: 'read_file',
              title: `<b onmouseover="window.__pwned=1">Read</b>`,
              description,
              inputSchema: {
                type: 'object',
                properties: { path: { type: 'string', description: `${XSS_IMG} the path`, title: `<svg onload="window.__pwned=1">` } },
                required: ['path'],
              },
              annotations: { title: XSS_IMG },
            },
          ],
        },
      }),
    });
    const server = await registerServer(t, { name: 'hostile', kind: 'BUILT_IN', transport: 'streamable-http', url: hostile.url });
    await settled(t, server.id);
    const page = await asAdmin();
    await page.goto(`${t.baseUrl}/#/servers/${server.id}`);
    await page.getByRole('heading', { name: 'hostile', level: 1 }).waitFor();
    await page.locator('li[data-tool="read_file"] > details > summary').click();
    // The markup is on the screen as text, exactly as sent.
    await expectText(page.locator('li[data-tool="read_file"] .description'), description);
    await expectText(page.locator('pre.text'), XSS_IMG);
    await page.locator('li[data-tool="read_file"] > details > summary').hover();
    await page.goto(`${t.baseUrl}/#/servers/${server.id}/tools/read_file`);
    await page.getByRole('button', { name: 'Call the tool' }).waitFor();
    await shot(page, 'hostile-try');
    await page.goto(`${t.baseUrl}/#/servers/${server.id}`);
    await page.locator('li[data-tool="read_file"] > details > summary').click();
    await shot(page, 'hostile');
    // Only the console's own pages are linked (fragments); nothing a server sent became a link.
    await expectInert(page, dialogs);
    await page.close();
  });

  it('lets the admin make a tenant key (shown once, with a copy button), revoke it, and read the audit log', async () => {
    const page = await adminOn('Tenants');
    await page.getByLabel("New tenant's name").fill('acme');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('link', { name: 'acme', exact: true }).click();
    await page.getByLabel("New key's name").fill('agent-prod');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^mcpr_/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await shot(page, 'tenant-keys');
    // The new key works, until it is revoked.
    expect((await t.request('GET', '/api/v1/servers', { key })).status).toBe(200);
    await page.getByRole('button', { name: 'I have kept it: hide it' }).click();
    expect(await page.locator('#new-key').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await expectText(page.locator('table tbody'), /revoked/);
    expect((await t.request('GET', '/api/v1/servers', { key })).status).toBe(401);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByLabel('Action').fill('api_key.revoke');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expectText(page.locator('table tbody'), /revoke/);
    await page.getByLabel('Action').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expectText(page.locator('table tbody'), /server\.create/);
    await shot(page, 'audit');
    await page.close();
  });

  it('edits, disables, re-enables, sets credentials (never shown) and deletes a server from its page', async () => {
    const token = `s3cr3t-console-${Date.now()}-token`;
    const server = await registerServer(t, { name: 'editable', kind: 'BUILT_IN', transport: 'streamable-http', url: tenantServer.url });
    await settled(t, server.id);
    const page = await asAdmin();
    const bodies = recordBodies(page);
    await page.goto(`${t.baseUrl}/#/servers/${server.id}`);
    const badge = page.locator('.title-row .badge');
    await expectText(badge, /^CONNECTED$/);
    await page.getByRole('button', { name: 'Disable' }).click();
    await expectText(badge, /^DISCONNECTED$/, 20_000);
    await page.getByRole('button', { name: 'Enable' }).click();
    await expectText(badge, /^CONNECTED$/, 30_000);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Labels').fill('owner=ops');
    await page.getByLabel('Bearer token').fill(token);
    await page.getByRole('button', { name: 'Save' }).click();
    await expectText(page.locator('.facts'), /owner=ops/, 20_000);
    await expectText(page.locator('.facts'), /set \(write-only: never shown\)/);
    const row = await t.runtime.prisma.server.findUnique({ where: { id: server.id } });
    expect(row?.credentialsCipher).toBeTruthy();
    expect(row?.credentialsCipher).not.toContain(token);
    // A saved change is discovered again; once it has settled, a discovery asked for by hand is queued.
    await expectText(badge, /^CONNECTED$/, 30_000);
    await page.getByRole('button', { name: 'Discover now' }).click();
    await expectText(page.locator('main'), /Discovery queued|Discovery in progress/);
    await page.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel('Bearer token').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Close the editor' }).click();
    expect(await page.content()).not.toContain(token);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor();
    expect((await t.request('GET', `/api/v1/servers/${server.id}`)).status).toBe(404);
    expect((await bodies.read()).filter((b) => b.body.includes(token))).toEqual([]);
    await page.close();
  });

  it("shows a server behind OAuth as authorization required, gives the registry's link, and follows it to authorized and CONNECTED", async () => {
    as = await startAuthorizationServer({ resourceScopes: ['tools:read', 'tools:call'] });
    protectedServer = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: `${as.issuer}/jwks`, scopesSupported: ['tools:read', 'tools:call'] });
    const tenant = await makeTenant(t, 'console-oauth');
    const server = await registerServer(t, { name: 'notes', transport: 'streamable-http', url: protectedServer.url }, tenant.key);
    await settled(t, server.id);
    const page = await signIn(context, t.baseUrl, tenant.key);
    await page.goto(`${t.baseUrl}/#/servers/${server.id}`);
    await expectText(page.locator('.facts'), /OAuth\s*required/);
    await expectText(page.locator('.reason'), /authorization required/);
    await page.getByRole('button', { name: 'Authorize' }).click();
    const link = page.getByRole('link', { name: "Open the authorization server's page" });
    const href = (await link.getAttribute('href')) ?? '';
    expect(href.startsWith(`${as.issuer}/`)).toBe(true);
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await shot(page, 'oauth-required');
    // The person's login and consent on the authorization server's own pages (over HTTP, as a browser would).
    const consent = await consentAs(href, 'alice', { callbackPrefix: `${publicUrl}/oauth/callback` });
    expect(consent.status).toBe(200);
    // This page follows by itself: authorized, then CONNECTED with the tools.
    await expectText(page.locator('.facts'), /OAuth\s*authorized/, 30_000);
    await expectText(page.locator('.title-row .badge'), /^CONNECTED$/, 30_000);
    await expectText(page.locator('#tools-title'), /Tools \(2\)/);
    await page.close();
  });

  it('shows the API field errors of a refused registration beside their fields', async () => {
    const page = await asAdmin();
    await page.getByRole('link', { name: 'Register', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('bad');
    await page.getByLabel('URL').fill('not a url');
    await page.getByRole('button', { name: 'Register' }).click();
    const urlField = page.locator('.field', { has: page.getByLabel('URL') });
    await expectText(urlField.locator('.field-error'), /url/i);
    expect(await page.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    await page.close();
  });

  it('pages through 10,000 servers in the browser and reports the time to the first row and to the next page', async () => {
    const started = Date.now();
    const seeded = await seedServers(t, 10_000);
    const seedMs = Date.now() - started;
    const page = await context.newPage();
    await page.goto(t.baseUrl + '/');
    await page.evaluate(([key]) => {
      sessionStorage.setItem('mcpr.console.apiKey', key);
      sessionStorage.setItem('mcpr.console.role', 'admin');
    }, [t.adminKey]);
    const t0 = Date.now();
    await page.reload();
    const firstRow = page.locator('table.servers tbody tr').first();
    await firstRow.waitFor();
    const firstRowMs = Date.now() - t0;
    const firstId = await firstRow.getAttribute('data-server-id');
    const rows = await page.locator('table.servers tbody tr').count();
    const t1 = Date.now();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForFunction((id) => document.querySelector('table.servers tbody tr')?.getAttribute('data-server-id') !== id, firstId);
    const nextPageMs = Date.now() - t1;
    const t2 = Date.now();
    await page.getByLabel('Name contains').fill('-09999');
    await page.waitForFunction(() => [...document.querySelectorAll('table.servers tbody th a')].every((a) => a.textContent?.includes('-09999')) && document.querySelectorAll('table.servers tbody tr').length > 0);
    const filterMs = Date.now() - t2;
    await page.getByLabel('Name contains').fill('');
    await page.waitForFunction(() => document.querySelectorAll('table.servers tbody tr').length === 50);
    await shot(page, 'servers', false);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'servers-phone', false);
    // At phone width nothing is wider than the screen (the table becomes a list).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.goto(`${t.baseUrl}/#/servers/${await serverIdByName(t, 'everything')}`);
    await page.getByRole('heading', { name: 'Identity' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'server-phone', false);
    const report = { servers: seeded, seedMs, rowsOnPage: rows, firstRowMs, nextPageMs, filterMs };
    process.stdout.write(`console: 10,000 servers in the browser: ${JSON.stringify(report)}\n`);
    expect(rows).toBe(50);
    await page.close();
  });
});

/**
 * 10,000 platform servers written straight into the test's database (one INSERT ... SELECT): every tenth in
 * ERROR with a reason, the rest CONNECTED, as discovery would have left them.
 */
async function seedServers(t: TestApp, n: number): Promise<number> {
  const c = new Client({ connectionString: t.runtime.databaseUrl });
  await c.connect();
  try {
    const r = await c.query(
      `INSERT INTO servers (id, tenant_id, owner_scope, name, kind, transport, url, status, status_reason, server_name, server_version,
                            protocol_version, capabilities, tool_count, last_discovered_at, discovery_interval_seconds)
       SELECT gen_random_uuid(), NULL, 'platform', 'seeded-' || lpad(g::text, 5, '0'), 'BUILT_IN', 'STREAMABLE_HTTP',
              'http://127.0.0.1:9/s/' || g || '/mcp',
              (CASE WHEN g % 10 = 0 THEN 'ERROR' ELSE 'CONNECTED' END)::"ServerStatus",
              CASE WHEN g % 10 = 0 THEN 'connection refused (ECONNREFUSED 127.0.0.1:9)' END,
              'seeded-' || g, '1.0.0', '2025-06-18', '{"tools":{"listChanged":false}}'::jsonb, g % 17,
              now() - (g * interval '1 second'), 2592000
       FROM generate_series(1, $1::int) AS g`,
      [n],
    );
    await c.query(`UPDATE server_discovery SET next_at = now() + interval '30 days'`);
    return r.rowCount ?? 0;
  } finally {
    await c.end();
  }
}

async function serverIdByName(t: TestApp, name: string): Promise<string> {
  const res = await t.request('GET', `/api/v1/servers?q=${encodeURIComponent(name)}`);
  const found = (res.body.servers as { id: string; name: string }[]).find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found.id;
}
