/// <reference lib="dom" />
// The page.evaluate callbacks run in the browser: they need the DOM types.
import { stdioFixture } from '../fixtures/hostile-servers';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { everythingStdio } from '../fixtures/reference-servers';
import { makeTenant, registerServer, settled } from '../support/servers';
import { signIn } from './browser';
import { ConsoleHarness, describeBrowser, expectFitsPhone, expectInert, expectText, shot, startConsole, XSS_IMG, XSS_URL } from './harness';

describeBrowser("console in Chromium: a server's resources and prompts", () => {
  let h: ConsoleHarness;
  let hostile: RawServer | undefined;

  beforeAll(async () => {
    h = await startConsole();
  });
  afterAll(() => Promise.all([hostile?.close(), h?.close()]));

  const open = (page: import('playwright-core').Page, listing: string) => page.locator(`details[data-listing="${listing}"] > summary`).click();

  it("shows server-everything's resources, templates and prompts as discovered, to the admin and to a tenant", async () => {
    const server = await registerServer(h.t, { name: 'everything', kind: 'BUILT_IN', transport: 'stdio', ...everythingStdio() });
    const row = await settled(h.t, server.id);
    expect(row.status).toBe('CONNECTED');
    const page = await signIn(h.context, h.t.baseUrl, h.t.adminKey);
    await page.goto(`${h.t.baseUrl}/#/servers/${server.id}`);
    await expectText(page.locator('details[data-listing="resources"] > summary'), `Resources (${row.resourceCount})`);
    await open(page, 'resources');
    await open(page, 'templates');
    await open(page, 'prompts');
    const resources = page.locator('[data-listing="resources"] li[data-resource]');
    await resources.first().waitFor();
    expect(await resources.count()).toBe(row.resourceCount);
    await expectText(page.locator('[data-listing="templates"] li').first(), /\{/);
    const prompts = page.locator('[data-listing="prompts"] li[data-prompt]');
    await prompts.first().waitFor();
    expect(await prompts.count()).toBe(row.promptCount);
    await shot(page, 'resources');
    await page.close();
    // A tenant sees the platform's server's lists too (it may call them).
    const tenant = await makeTenant(h.t, 'resources-tenant');
    const viewer = await signIn(h.context, h.t.baseUrl, tenant.key);
    await viewer.goto(`${h.t.baseUrl}/#/servers/${server.id}`);
    await open(viewer, 'prompts');
    await viewer.locator('[data-listing="prompts"] li[data-prompt]').first().waitFor();
    expect(await viewer.locator('.error').count()).toBe(0);
    await viewer.close();
  });

  it('pages a long list 100 at a time, and shows what a server sent as inert text (URIs included: never links)', async () => {
    const paged = await registerServer(h.t, { name: 'paged', kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('paginated-listings.cjs', '130', '3', '5', '25') });
    await settled(h.t, paged.id);
    const page = await signIn(h.context, h.t.baseUrl, h.t.adminKey);
    await page.goto(`${h.t.baseUrl}/#/servers/${paged.id}`);
    await open(page, 'resources');
    const items = page.locator('[data-listing="resources"] li[data-resource]');
    await page.waitForFunction(() => document.querySelectorAll('[data-listing="resources"] li[data-resource]').length === 100);
    await page.getByRole('button', { name: 'More resources' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-listing="resources"] li[data-resource]').length === 130);
    await expectText(items.last(), 'paged://doc/129');
    expect(await page.getByRole('button', { name: 'More resources' }).count()).toBe(0);

    hostile = await startRawServer({
      name: 'hostile-listings',
      capabilities: { tools: {}, resources: {}, prompts: {} },
      onToolsList: () => ({ result: { tools: [sampleTool('noop')] } }),
      onRequest: (req) => {
        if (req.method === 'resources/list') return { result: { resources: [{ uri: XSS_URL, name: `<b>${XSS_IMG}</b>`, description: `Read me ${XSS_IMG}` }] } };
        if (req.method === 'resources/templates/list') return { result: { resourceTemplates: [{ uriTemplate: `${XSS_URL}/{id}`, name: XSS_IMG }] } };
        if (req.method === 'prompts/list') return { result: { prompts: [{ name: 'steer', description: `<script>window.__pwned=1</script>`, arguments: [{ name: 'x', description: XSS_IMG, required: true }] }] } };
        return undefined;
      },
    });
    const bad = await registerServer(h.t, { name: 'hostile-listings', kind: 'BUILT_IN', transport: 'streamable-http', url: hostile.url });
    await settled(h.t, bad.id);
    await page.goto(`${h.t.baseUrl}/#/servers/${bad.id}`);
    for (const l of ['resources', 'templates', 'prompts']) await open(page, l);
    await expectText(page.locator('[data-listing="resources"] li').first(), XSS_URL);
    await expectText(page.locator('[data-listing="resources"] li').first(), `Read me ${XSS_IMG}`);
    await expectText(page.locator('[data-listing="prompts"] li').first(), '<script>window.__pwned=1</script>');
    await expectInert(page, h.dialogs);
    await shot(page, 'resources-hostile');
    await expectFitsPhone(page);
    await page.close();
  });
});
