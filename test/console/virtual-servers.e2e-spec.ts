/// <reference lib="dom" />
// The page.evaluate callbacks run in the browser: they need the DOM types.
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { sdk1Client } from '../support/mcp-clients';
import { makeTenant, registerServer, settled } from '../support/servers';
import { signIn } from './browser';
import { ConsoleHarness, describeBrowser, expectFitsPhone, expectInert, expectText, shot, startConsole, XSS_IMG } from './harness';

describeBrowser('console in Chromium: virtual servers', () => {
  let h: ConsoleHarness;
  /** Two upstream servers of a tenant: one joins whole, one by a single tool. */
  const upstreams: Record<'github' | 'tracker', RawServer | undefined> = { github: undefined, tracker: undefined };
  const toolsOf = { github: [sampleTool('create_issue'), sampleTool('list_repos', `Lists repositories ${XSS_IMG}`)], tracker: [sampleTool('open_ticket'), sampleTool('close_ticket')] };

  beforeAll(async () => {
    h = await startConsole();
    for (const name of ['github', 'tracker'] as const) upstreams[name] = await startRawServer({ name, onToolsList: () => ({ result: { tools: toolsOf[name] } }) });
  });
  afterAll(() => Promise.all([...Object.values(upstreams).map((u) => u?.close()), h?.close()]));

  it('makes a virtual server of a whole server and a single tool, lists what it serves, and its endpoint answers an MCP client', async () => {
    const tenant = await makeTenant(h.t, 'virtual-tenant');
    const other = await makeTenant(h.t, 'virtual-other');
    for (const name of ['github', 'tracker'] as const) await settled(h.t, (await registerServer(h.t, { name, transport: 'streamable-http', url: upstreams[name]!.url }, tenant.key)).id);
    const page = await signIn(h.context, h.t.baseUrl, tenant.key);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Virtual servers' }).click();
    await page.getByRole('button', { name: 'Make a virtual server' }).click();
    await page.getByLabel('Name', { exact: true }).fill('triage');
    await page.getByLabel('Description (optional)').fill('What the triage agent may use');
    await page.getByLabel('Find a server').fill('github');
    await page.getByRole('button', { name: 'Add github whole' }).click();
    await page.getByLabel('Find a server').fill('tracker');
    await page.getByRole('button', { name: 'Choose tools of tracker' }).click();
    await page.getByLabel('open_ticket').check();
    await expectText(page.locator('.chosen'), /github \(every tool\).*tracker \/ open_ticket/s);
    await shot(page, 'virtual-new');
    await page.getByRole('button', { name: 'Make it' }).click();
    await page.getByRole('heading', { name: 'triage', level: 1 }).waitFor();
    const listed = page.locator('section', { has: page.locator('#vs-tools') });
    await expectText(page.locator('#vs-tools'), /Tools it lists now \(3\)/);
    await expectText(listed, /create_issue/);
    await expectText(listed, /open_ticket/);
    expect(await listed.getByText('close_ticket').count()).toBe(0);
    const endpoint = await page.getByLabel('MCP endpoint').inputValue();
    expect(endpoint).toMatch(new RegExp(`^${h.t.baseUrl}/mcp/v/[0-9a-f-]{36}$`));
    await expectInert(page, h.dialogs);
    await shot(page, 'virtual-server');
    // The endpoint shown is the one an MCP client reaches, with the same key.
    const client = await sdk1Client(endpoint, tenant.key);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toHaveLength(3);
      expect(names.some((n) => n.includes('open_ticket'))).toBe(true);
    } finally {
      await client.close();
    }
    // Edit: drop the single tool.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Remove open_ticket' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await expectText(page.locator('#vs-tools'), /Tools it lists now \(2\)/);
    // Listed for its tenant; another tenant's key sees none of it.
    await page.getByRole('link', { name: 'Virtual servers' }).first().click();
    await expectText(page.locator('table.virtual tbody'), /triage.*1 servers, 0 tools/s);
    expect((await h.t.request('GET', '/api/v1/virtual-servers', { key: other.key })).body.virtualServers).toEqual([]);
    await expectFitsPhone(page);
    await page.getByRole('link', { name: 'triage' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expectText(page.locator('main'), /No virtual server yet/);
    await page.close();
  });
});
