import { NotFoundError, Principal } from '@app/domain';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createRegistryMcpServer } from './registry-mcp-server';
import { RegistryTools } from './registry-tools';

const tenant: Principal = { type: 'tenant', tenantId: 't-1', keyId: 'k-1' };
const SERVER_ID = '3b241101-e2bb-4255-8caf-4136c566a962';

/** A small in-memory registry: enough to see that each tool reaches its service with the caller's principal. */
function memoryTools(seen: Principal[]): RegistryTools {
  const info = {
    serverId: SERVER_ID,
    name: 'weather',
    version: '1.0.0',
    capabilities: ['tools'],
    metadata: {},
    status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
    availableTools: [{ name: 'forecast', inputSchema: { type: 'object' } }],
    kind: 'MCP_SERVER_KIND_CUSTOM',
  };
  return {
    async searchTools(p, input) {
      seen.push(p);
      return input.query.includes('weather')
        ? { results: [{ serverId: SERVER_ID, serverName: 'weather', tool: info.availableTools[0], score: 1, confidence: 'high' as const }] }
        : { results: [] };
    },
    async getServerInfo(p, id) {
      seen.push(p);
      if (id !== SERVER_ID) throw new NotFoundError(`server ${id} not found`);
      return info;
    },
    async listServers(p) {
      seen.push(p);
      return { servers: [info] };
    },
    async callTool(p, input) {
      seen.push(p);
      return { content: [{ type: 'text', text: `called ${input.toolName}` }], isError: false };
    },
  };
}

async function connect(tools?: RegistryTools, principal?: Principal) {
  const server = createRegistryMcpServer(tools, principal, '1.2.3');
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'spec', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}

describe('the registry MCP server', () => {
  it('lists its four tools with rubric descriptions and truthful annotations', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['call_tool', 'get_server_info', 'list_servers', 'search_tools']);
    for (const t of tools) {
      const d = t.description!;
      expect(d.split('\n')[0]).toMatch(/^(Search|Get|List|Run) /);
      const order = ['WHEN TO USE:', 'WHEN NOT TO USE:', 'CRITICAL:', 'Self-test:'].map((s) => d.indexOf(s));
      expect(order.every((i) => i > 0)).toBe(true);
      expect([...order].sort((x, y) => x - y)).toEqual(order);
      // Each WHEN NOT TO USE names at least one neighbouring tool.
      const notSection = d.slice(order[1], order[2]);
      expect(tools.some((o) => o.name !== t.name && notSection.includes(o.name))).toBe(true);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const reader of ['search_tools', 'get_server_info', 'list_servers']) {
      expect(byName[reader]).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    }
    expect(byName.call_tool).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it('answers each tool through the services, scoped to the principal', async () => {
    const seen: Principal[] = [];
    const client = await connect(memoryTools(seen), tenant);
    const search = await client.callTool({ name: 'search_tools', arguments: { query: 'weather tomorrow' } });
    expect((search.structuredContent as any).results[0].tool.name).toBe('forecast');
    const info = await client.callTool({ name: 'get_server_info', arguments: { serverId: SERVER_ID } });
    expect((info.structuredContent as any).name).toBe('weather');
    const list = await client.callTool({ name: 'list_servers', arguments: { kind: 3 } });
    expect((list.structuredContent as any).servers).toHaveLength(1);
    const call = await client.callTool({ name: 'call_tool', arguments: { serverId: SERVER_ID, toolName: 'forecast' } });
    expect(call.content).toEqual([{ type: 'text', text: 'called forecast' }]);
    expect(seen).toHaveLength(4);
    expect(seen.every((p) => p === tenant)).toBe(true);
  });

  it('returns domain errors and invalid input as isError results', async () => {
    const client = await connect(memoryTools([]), tenant);
    const missing = await client.callTool({
      name: 'get_server_info',
      arguments: { serverId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain('not found');
    const invalid = await client.callTool({ name: 'search_tools', arguments: { query: '' } });
    expect(invalid.isError).toBe(true);
  });
});
