import type { Client as Client2 } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpChangeStreams } from '../../apps/api/src/mcp/mcp-change-streams.service';
import { CallFixture, startCallFixture } from '../llm/call-fixtures';
import { eventually, registerAndDiscover } from '../llm/helpers';
import { startTestApp, TestApp } from '../support/app';
import { sdk1Client, sdk2Client } from '../support/mcp-clients';
import { makeTenant, TenantKey } from '../support/tenants';

const TEMPLATE = 'mcp-registry://servers/{serverId}';
const serverUri = (id: string) => `mcp-registry://servers/${id}`;
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * /mcp in both eras, looked at closely: the 2026-07-28 revision on the wire (server/discover, no session,
 * the Mcp-Method / Mcp-Name header checks, ttlMs and cacheScope), the registry's resources, completions and
 * prompts in both eras, and change notifications (a 2025-era GET stream, a 2026-07-28 subscriptions/listen)
 * scoped to what each caller sees.
 */
describe('/mcp: the 2026-07-28 revision, resources, completions, prompts and change notifications', () => {
  let t: TestApp;
  let fixture: CallFixture;
  let a: TenantKey;
  let b: TenantKey;
  let serverId: string;
  let url: string;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    fixture = await startCallFixture();
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    [a, b] = [await makeTenant(t), await makeTenant(t)];
    serverId = (await registerAndDiscover(t, { name: 'echoes', transport: 'streamable-http', url: fixture.url }, a.key)).id;
    url = `${t.baseUrl}/mcp`;
  });

  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
    await t?.close();
    await fixture?.close();
  });

  async function modern(key: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: ENVELOPE } }),
    });
    return { status: res.status, session: res.headers.get('mcp-session-id'), body: (await res.json()) as any };
  }

  const kept = <T extends { close(): Promise<void> }>(c: T): T => (open.push(c), c);
  const v1 = async (key: string): Promise<Client> => kept(await sdk1Client(url, key));
  const v2 = async (key: string): Promise<Client2> => kept(await sdk2Client(url, key, 'pinned'));

  it('answers server/discover with no session, its capabilities and cache hints', async () => {
    const discover = await modern(a.key, 'server/discover');
    expect(discover.status).toBe(200);
    expect(discover.session).toBeNull();
    expect(discover.body.result.supportedVersions).toContain('2026-07-28');
    expect(discover.body.result.capabilities).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, completions: {} });
    expect(discover.body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'mcp-registry' });
    const tools = await modern(a.key, 'tools/list');
    expect(tools.session).toBeNull();
    expect(tools.body.result).toMatchObject({ ttlMs: 10_000, cacheScope: 'private' });
    expect(tools.body.result.tools).toHaveLength(4);
    // The initialize era gets no session either: any replica answers the next request.
    const init = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(((await init.json()) as any).result.protocolVersion).toBe('2025-11-25');
  });

  it('refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body, or lacks one (-32020, HTTP 400)', async () => {
    const call = { name: 'list_servers', arguments: {} };
    const ok = await modern(a.key, 'tools/call', call, { 'mcp-name': 'list_servers' });
    expect(ok.status).toBe(200);
    expect(ok.body.result.isError).toBeFalsy();
    const cases: Record<string, string>[] = [
      { 'mcp-method': 'tools/list', 'mcp-name': 'list_servers' },
      { 'mcp-name': 'call_tool' },
      {},
    ];
    for (const headers of cases) {
      const refused = await modern(a.key, 'tools/call', call, headers);
      expect({ headers, status: refused.status, code: refused.body.error?.code }).toEqual({ headers, status: 400, code: -32020 });
    }
  });

  it('offers its servers as the resource template mcp-registry://servers/{serverId}, read as the caller may see them, in both eras', async () => {
    const rpc = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { body: { serverId }, key: a.key });
    for (const client of [await v1(a.key), await v2(a.key)]) {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: TEMPLATE, mimeType: 'application/json' })]);
      const { resources } = await client.listResources();
      expect(resources).toEqual(expect.arrayContaining([expect.objectContaining({ uri: serverUri(serverId), name: 'echoes' })]));
      const read = await client.readResource({ uri: serverUri(serverId) });
      expect(read.contents).toHaveLength(1);
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(rpc.body);
    }
    // Another tenant can neither read nor list it.
    const other = await v2(b.key);
    await expect(other.readResource({ uri: serverUri(serverId) })).rejects.toMatchObject({ code: -32602 });
    expect((await other.listResources()).resources.map((r) => r.uri)).not.toContain(serverUri(serverId));
    const bad = await modern(a.key, 'resources/read', { uri: 'mcp-registry://elsewhere/1' }, { 'mcp-name': 'mcp-registry://elsewhere/1' });
    expect(bad.body.error.code).toBe(-32602);
  });

  it('completes serverId (the template and the prompts) and toolName, scoped to the caller', async () => {
    const prefix = serverId.slice(0, 6);
    for (const client of [await v1(a.key), await v2(a.key)]) {
      const ids = await client.complete({ ref: { type: 'ref/resource', uri: TEMPLATE }, argument: { name: 'serverId', value: prefix } });
      expect(ids.completion.values).toContain(serverId);
      const byName = await client.complete({ ref: { type: 'ref/prompt', name: 'describe_server' }, argument: { name: 'serverId', value: 'echo' } });
      expect(byName.completion.values).toContain(serverId);
      const tools = await client.complete({ ref: { type: 'ref/prompt', name: 'use_tool' }, argument: { name: 'toolName', value: 'ec' }, context: { arguments: { serverId } } });
      expect(tools.completion.values).toEqual(['echo']);
    }
    const other = await v1(b.key);
    const none = await other.complete({ ref: { type: 'ref/resource', uri: TEMPLATE }, argument: { name: 'serverId', value: prefix } });
    expect(none.completion.values).not.toContain(serverId);
  });

  it('offers prompts for the common tasks', async () => {
    for (const client of [await v1(a.key), await v2(a.key)]) {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['find_tool', 'describe_server', 'use_tool', 'check_servers']);
      const find = await client.getPrompt({ name: 'find_tool', arguments: { task: 'send a Slack message' } });
      expect(JSON.stringify(find.messages)).toContain('send a Slack message');
      expect(JSON.stringify(find.messages)).toContain('search_tools');
      const describe = await client.getPrompt({ name: 'describe_server', arguments: { serverId } });
      expect(describe.messages[0].content).toMatchObject({ type: 'resource', resource: { uri: serverUri(serverId), mimeType: 'application/json' } });
      await expect(client.getPrompt({ name: 'find_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    }
  });

  it('tells connected clients of both eras when the servers they see change, and only them', async () => {
    const heard = { a1: 0, a2: 0, b1: 0 };
    const a1 = await v1(a.key);
    a1.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.a1++);
    const b1 = await v1(b.key);
    b1.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.b1++);
    const a2 = await v2(a.key);
    a2.setNotificationHandler('notifications/resources/list_changed', () => void heard.a2++);
    const subscription = await a2.listen({ resourcesListChanged: true });
    // The 2025-era clients open their GET stream after initialize: wait until this replica holds all three.
    const streams = t.app.get(McpChangeStreams);
    await eventually('the change streams to be open', async () => streams.size >= 3, 10_000);

    await registerAndDiscover(t, { name: 'echoes-too', transport: 'streamable-http', url: fixture.url }, a.key);
    await eventually('both of tenant A’s clients to hear of it', async () => heard.a1 > 0 && heard.a2 > 0, 15_000);

    await registerAndDiscover(t, { name: 'echoes-of-b', transport: 'streamable-http', url: fixture.url }, b.key);
    await eventually('tenant B’s client to hear of its own server', async () => heard.b1 > 0, 15_000);
    // B heard once: of its own server, never of A's.
    expect(heard.b1).toBe(1);
    await subscription.close();
  });
});
