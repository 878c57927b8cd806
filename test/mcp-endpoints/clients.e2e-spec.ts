import { CallFixture, startCallFixture } from '../llm/call-fixtures';
import { registerAndDiscover } from '../llm/helpers';
import { startTestApp, TestApp } from '../support/app';
import { inspector, inspectorCall, pythonClient, pythonMcp, sdk1Client, sdk2Client } from '../support/mcp-clients';
import { makeTenant, TenantKey } from '../support/tenants';

const TOOLS = ['call_tool', 'get_server_info', 'list_servers', 'search_tools'];

/**
 * The client matrix on /mcp: real clients of each kind, each listing the tools and calling one that routes
 * to a registered server (call_tool → echo), in the era it speaks.
 */
describe('/mcp with every kind of client', () => {
  let t: TestApp;
  let fixture: CallFixture;
  let a: TenantKey;
  let serverId: string;
  let url: string;
  const py = pythonMcp();

  beforeAll(async () => {
    fixture = await startCallFixture();
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    a = await makeTenant(t);
    serverId = (await registerAndDiscover(t, { name: 'echoes', transport: 'streamable-http', url: fixture.url }, a.key)).id;
    url = `${t.baseUrl}/mcp`;
  });

  afterAll(async () => {
    await t?.close();
    await fixture?.close();
  });

  const echo = (message: string) => ({ serverId, toolName: 'echo', arguments: { message } });

  it('the TypeScript SDK 1.x client (initialize era) lists and calls the tools', async () => {
    const client = await sdk1Client(url, a.key);
    expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual(TOOLS);
    expect((await client.callTool({ name: 'call_tool', arguments: echo('from sdk 1') })).content).toEqual([{ type: 'text', text: 'Echo: from sdk 1' }]);
    await client.close();
  });

  for (const mode of ['pinned', 'auto'] as const) {
    it(`the TypeScript SDK 2.x client ${mode === 'pinned' ? 'in 2026-07-28-only mode' : 'in auto mode'} lists and calls the tools on 2026-07-28`, async () => {
      const client = await sdk2Client(url, a.key, mode);
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual(TOOLS);
      expect((await client.callTool({ name: 'call_tool', arguments: echo(`from sdk 2 ${mode}`) })).content).toEqual([{ type: 'text', text: `Echo: from sdk 2 ${mode}` }]);
      const info = await client.callTool({ name: 'get_server_info', arguments: { serverId } });
      expect(info.structuredContent).toMatchObject({ serverId, name: 'echoes' });
      await client.close();
    });
  }

  it('@modelcontextprotocol/inspector-cli lists and calls the tools', async () => {
    const listed = await inspector(url, a.key, ['--method', 'tools/list']);
    expect(listed.tools.map((x: { name: string }) => x.name).sort()).toEqual(TOOLS);
    const called = await inspectorCall(url, a.key, 'call_tool', echo('from the inspector'));
    expect(called.content).toEqual([{ type: 'text', text: 'Echo: from the inspector' }]);
  });

  for (const era of ['initialize', 'discover'] as const) {
    const name = `the Python MCP SDK (${era === 'initialize' ? 'initialize era' : '2026-07-28, server/discover'}) lists and calls the tools`;
    if ('missing' in py) {
      it.skip(`${name}: skipped, ${py.missing}`, () => undefined);
      continue;
    }
    it(name, async () => {
      const out = await pythonClient(py.python, url, a.key, era, 'call_tool', echo(`from python ${era}`));
      expect(out.tools).toEqual(TOOLS);
      if (era === 'discover') expect(out.protocolVersion).toBe('2026-07-28');
      else expect(out.protocolVersion).toMatch(/^2025-/);
      expect(out.result.content).toEqual([{ type: 'text', text: `Echo: from python ${era}` }]);
    });
  }
});
