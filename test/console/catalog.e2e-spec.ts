/// <reference lib="dom" />
// The page.evaluate callbacks run in the browser: they need the DOM types.
import type { Page } from 'playwright-core';
import { startFixtureRegistry } from '../fixtures/catalog/fixture-registry';
import { freePort } from '../fixtures/net';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { makeTenant } from '../support/servers';
import { signIn } from './browser';
import { ConsoleHarness, describeBrowser, expectFitsPhone, expectInert, expectText, recordBodies, shot, startConsole, XSS_IMG } from './harness';

const API_KEY = `s3cr3t-catalog-${Date.now()}-key`;
const TENANT_TOKEN = `s3cr3t-catalog-${Date.now()}-bearer`;

/** A published remote reached through a URL template ({port}) and a secret, required header: the schema's hosted-server shape. */
const weatherRemote = {
  type: 'streamable-http',
  url: 'http://127.0.0.1:{port}/mcp',
  headers: [
    { name: 'X-Api-Key', description: 'Your API key', isSecret: true, isRequired: true },
    { name: 'X-Units', description: 'Units', choices: ['metric', 'imperial'], default: 'metric' },
  ],
  variables: { port: { description: 'The port it listens on', isRequired: true } },
};

const packaged = {
  packages: [
    {
      registryType: 'npm',
      identifier: '@acme/mcp-weather',
      version: '2.0.0',
      transport: { type: 'stdio' },
      packageArguments: [{ type: 'named', name: '--region', description: 'Region', isRequired: true }],
      environmentVariables: [
        { name: 'LOG_LEVEL', default: 'info' },
        { name: 'ACME_API_KEY', isSecret: true, isRequired: true },
      ],
    },
  ],
};

describeBrowser('console in Chromium: the catalog', () => {
  let h: ConsoleHarness;
  let upstream: Awaited<ReturnType<typeof startFixtureRegistry>>;
  let weather: RawServer;
  /** Requests that reached the weather server with the right secret (the header the catalog form stored). */
  let authorized = 0;

  beforeAll(async () => {
    h = await startConsole();
    upstream = await startFixtureRegistry();
    weather = await startRawServer({
      name: 'weather',
      // The secret, stored write-only from the form, must arrive as the header the entry declares.
      onHttp: (req, res) => {
        const ok = req.headers['x-api-key'] === API_KEY || req.headers.authorization === `Bearer ${TENANT_TOKEN}`;
        if (ok) {
          authorized++;
          return false;
        }
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"forbidden"}');
        return true;
      },
      onToolsList: () => ({ result: { tools: [sampleTool('forecast', 'The weather for a city')] } }),
    });
    upstream.entries.push(
      {
        name: 'io.github.acme/weather',
        version: '1.2.0',
        description: `Forecasts. ${XSS_IMG}`,
        status: 'active',
        updatedAt: '2026-11-20T10:00:00Z',
        more: { title: '<script>window.__pwned=1</script>Weather', remotes: [weatherRemote] },
      },
      { name: 'io.github.acme/weather-local', version: '2.0.0', description: 'The same, as a package', status: 'active', updatedAt: '2026-11-20T10:01:00Z', more: packaged },
    );
  });
  afterAll(async () => {
    await weather?.close();
    await upstream?.close();
    await h?.close();
  });

  it('lets the admin add catalog sources, see how each sync ended, and sync one now', async () => {
    const closed = await freePort();
    const page = await signIn(h.context, h.t.baseUrl, h.t.adminKey);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Catalog sources' }).click();
    await page.getByLabel('Registry base URL').fill(upstream.url);
    await page.getByLabel('Sync every (seconds)').fill('86400');
    await page.getByRole('button', { name: 'Add source' }).click();
    const row = page.locator('tr', { hasText: upstream.url });
    await expectText(row.locator('.outcome'), /succeeded.*2 added/s, 30_000);
    // A bad URL: the API's field error beside the field.
    await page.getByLabel('Registry base URL').fill('not a url');
    await page.getByRole('button', { name: 'Add source' }).click();
    await expectText(page.locator('.field', { has: page.getByLabel('Registry base URL') }).locator('.field-error'), /\S/);
    expect(await page.getByLabel('Registry base URL').getAttribute('aria-invalid')).toBe('true');
    // A source that cannot be reached: failed, with the reason.
    await page.getByLabel('Registry base URL').fill(`http://127.0.0.1:${closed}`);
    await page.getByRole('button', { name: 'Add source' }).click();
    await expectText(page.locator('tr', { hasText: `127.0.0.1:${closed}` }).locator('.outcome'), /failed.*\S/s, 30_000);
    // Upstream publishes one more; "Sync now" brings it without waiting for the day's sync.
    upstream.entries.push({ name: 'io.github.acme/tides', version: '0.1.0', description: 'Tide tables', status: 'active', updatedAt: '2026-11-21T10:00:00Z' });
    await row.getByRole('button', { name: 'Sync now' }).click();
    await expectText(row.locator('.outcome'), /succeeded.*1 added/s, 30_000);
    expect(upstream.requests.at(-1)).toContain('updated_since=');
    await shot(page, 'catalog-sources');
    await page.close();
  });

  it('browses and searches the catalog, reads an entry for what it needs, and shows what a publisher wrote as inert text', async () => {
    const page = await signIn(h.context, h.t.baseUrl, h.t.adminKey);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Catalog', exact: true }).click();
    await expectText(page.locator('table.catalog tbody'), /tides/);
    await page.getByLabel('Search the catalog').fill('weather');
    await page.waitForFunction(() => document.querySelectorAll('table.catalog tbody tr').length === 2);
    await expectText(page.locator('tr[data-entry="io.github.acme/weather@1.2.0"]'), /1 remote.*platform, synced/s);
    await expectText(page.locator('tr[data-entry="io.github.acme/weather-local@2.0.0"]'), /1 package/);
    await shot(page, 'catalog');
    await page.locator('tr[data-entry="io.github.acme/weather@1.2.0"] th a').click();
    await page.getByRole('heading', { name: '<script>window.__pwned=1</script>Weather', level: 1 }).waitFor();
    await expectText(page.locator('.description').first(), `Forecasts. ${XSS_IMG}`);
    const remote = page.locator('[data-remote="0"]');
    await expectText(remote, /http:\/\/127\.0\.0\.1:\{port\}\/mcp/);
    await expectText(remote.locator('tr', { hasText: 'X-Api-Key' }), /header.*required.*secret.*Your API key/s);
    await expectText(remote.locator('tr', { hasText: 'port' }).first(), /URL variable.*required/s);
    await expectText(remote.locator('tr', { hasText: 'X-Units' }), /optional.*metric \| imperial/s);
    await expectInert(page, h.dialogs);
    await shot(page, 'catalog-entry');
    // A package: its arguments and plain environment are asked for; its secret comes from the platform's environment.
    await page.goto(`${h.t.baseUrl}/#/catalog/${encodeURIComponent('io.github.acme/weather-local')}/2.0.0`);
    const pkg = page.locator('[data-package="0"]');
    await expectText(pkg, /npm @acme\/mcp-weather@2\.0\.0 \(stdio\)/);
    await expectText(pkg.locator('tr', { hasText: '--region' }), /named argument.*required/s);
    await expectText(pkg, /ACME_API_KEY is secret: the program gets it from the platform's environment variable ACME_API_KEY/);
    await pkg.getByRole('button', { name: 'Make a server from this package' }).waitFor();
    await expectFitsPhone(page);
    await shot(page, 'catalog-entry-phone', false);
    await page.close();
  });

  it('turns a remote into a server through a form of its required values, secrets as password fields never shown back, and watches it connect', async () => {
    const page = await signIn(h.context, h.t.baseUrl, h.t.adminKey);
    const bodies = recordBodies(page);
    await page.goto(`${h.t.baseUrl}/#/catalog/${encodeURIComponent('io.github.acme/weather')}/1.2.0`);
    await page.getByRole('button', { name: 'Make a server from this remote' }).click();
    // Nothing given: the API names each missing value, shown beside its field.
    await page.getByRole('button', { name: 'Make the server' }).click();
    await expectText(page.locator('.field', { has: page.getByLabel('port (required)') }).locator('.field-error'), /is required \(The port it listens on\)/);
    await expectText(page.locator('.field', { has: page.getByLabel('X-Api-Key (required)') }).locator('.field-error'), /is required \(Your API key\)/);
    expect(await page.getByLabel('port (required)').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('X-Api-Key (required)').getAttribute('type')).toBe('password');
    await page.getByLabel('Server name').fill('weather');
    await page.getByLabel('port (required)').fill(String(weather.port));
    await page.getByLabel('X-Api-Key (required)').fill(API_KEY);
    await page.getByLabel('X-Units').selectOption('imperial');
    await shot(page, 'catalog-from-entry');
    await page.getByRole('button', { name: 'Make the server' }).click();
    await page.getByRole('heading', { name: 'weather', level: 1 }).waitFor();
    await expectText(page.locator('.title-row .badge'), /^CONNECTED$/, 30_000);
    await expectText(page.locator('#tools-title'), /Tools \(1\)/);
    expect(authorized).toBeGreaterThan(0);
    await expectText(page.locator('.facts'), /From the catalog\s*io\.github\.acme\/weather 1\.2\.0/);
    await expectText(page.locator('.facts'), /set \(write-only: never shown\)/);
    const server = await h.t.runtime.prisma.server.findFirstOrThrow({ where: { name: 'weather' } });
    expect(server.url).toBe(`http://127.0.0.1:${weather.port}/mcp`);
    expect(server.headers).toEqual({ 'X-Units': 'imperial' });
    expect(server.credentialsCipher).not.toContain(API_KEY);
    // The entry now lists the server made from it.
    await page.goto(`${h.t.baseUrl}/#/catalog/${encodeURIComponent('io.github.acme/weather')}/1.2.0`);
    await expectText(page.locator('section', { has: page.locator('#made-title') }), /weather\s*CONNECTED/);
    expect(await page.content()).not.toContain(API_KEY);
    expect((await bodies.read()).filter((b) => b.body.includes(API_KEY))).toEqual([]);
    await page.close();
  });

  it("lets a tenant import a client config and a server.json into its own catalog, sees only what its key sees, and makes a server from its entry", async () => {
    const tenant = await makeTenant(h.t, 'catalog-tenant');
    const other = await makeTenant(h.t, 'catalog-other');
    const page = await signIn(h.context, h.t.baseUrl, tenant.key);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Catalog', exact: true }).click();
    expect(await page.getByRole('link', { name: 'Catalog sources' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Import' }).click();
    // Not JSON: said at once, nothing sent.
    await page.getByLabel('What to import (JSON)').fill('{"mcpServers": ');
    await page.getByRole('button', { name: 'Import' }).click();
    await expectText(page.getByRole('alert'), /not JSON/);
    // A server.json the schema refuses: each wrong field named.
    await page.getByLabel('What to import (JSON)').fill(JSON.stringify({ name: 'io.github.tenant/bad', version: '1.0.0' }));
    await page.getByRole('button', { name: 'Import' }).click();
    await expectText(page.locator('.refused'), /nothing imported.*description/s);
    const config = { mcpServers: { notes: { url: weather.url, headers: { Authorization: 'Bearer something-secret-not-kept' } } } };
    await page.getByLabel('What to import (JSON)').fill(JSON.stringify(config, null, 2));
    await page.getByRole('button', { name: 'Import' }).click();
    const result = page.locator('section', { has: page.locator('#import-result') });
    await expectText(result, /Read as client config: 1 added, 0 updated, 0 unchanged/);
    await expectText(result, /local\.mcp-config\/notes.*added.*notes\.headers\.Authorization/s);
    await shot(page, 'catalog-import');
    // Its catalog: its own entry beside the platform's; another tenant's key sees none of it.
    await page.getByRole('link', { name: 'Catalog', exact: true }).first().click();
    await expectText(page.locator('table.catalog tbody'), /local\.mcp-config\/notes.*tenant/s);
    await expectText(page.locator('table.catalog tbody'), /weather/);
    const seenByOther = await h.t.request('GET', '/api/v1/catalog?q=local.mcp-config', { key: other.key });
    expect(seenByOther.body.entries).toEqual([]);
    // A package is the admin's to run: the tenant is told, not offered the form.
    await page.goto(`${h.t.baseUrl}/#/catalog/${encodeURIComponent('io.github.acme/weather-local')}/2.0.0`);
    await expectText(page.locator('[data-package="0"]'), /only the admin makes servers from packages/);
    expect(await page.getByRole('button', { name: 'Make a server from this package' }).count()).toBe(0);
    // Its own entry: the withheld Authorization is asked again, as a secret.
    await page.goto(`${h.t.baseUrl}/#/catalog/${encodeURIComponent('local.mcp-config/notes')}/latest`);
    await page.getByRole('button', { name: 'Make a server from this remote' }).click();
    await fillSecret(page, 'Authorization', `Bearer ${TENANT_TOKEN}`);
    await page.getByRole('button', { name: 'Make the server' }).click();
    await page.getByRole('heading', { name: 'notes', level: 1 }).waitFor();
    await expectText(page.locator('.title-row .badge'), /^CONNECTED$/, 30_000);
    expect(await page.content()).not.toContain(TENANT_TOKEN);
    const mine = await h.t.request('GET', '/api/v1/servers?q=notes', { key: other.key });
    expect(mine.body.servers).toEqual([]);
    await page.close();
  });
});

async function fillSecret(page: Page, name: string, value: string): Promise<void> {
  const input = page.getByLabel(new RegExp(`^${name}`));
  expect(await input.getAttribute('type')).toBe('password');
  await input.fill(value);
}
