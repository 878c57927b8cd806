import { Principal } from '@app/domain';
import type { McpServerDefinition } from '@app/mcp-server';
import type { ToolCatalogService } from '../llm-tools/tool-catalog.service';
import { ListKind, McpChangeStreams, McpRoute } from './mcp-change-streams.service';

const a: Principal = { type: 'tenant', tenantId: 't-a', keyId: 'k-a' };
const b: Principal = { type: 'tenant', tenantId: 't-b', keyId: 'k-b' };
/** Another key of tenant A: it sees what A sees. */
const a2: Principal = { type: 'tenant', tenantId: 't-a', keyId: 'k-a2' };

/** How often each route's definition was built, by route name. */
const built = new Map<string, number>();

/** What each tenant sees: a tool per name, a resource per server. */
const seen = new Map<string, { tools: string[]; servers: string[] }>();
const route: McpRoute = {
  name: '/spec',
  definitionFor(p) {
    built.set(this.name, (built.get(this.name) ?? 0) + 1);
    if (p.type !== 'tenant') throw new Error('tenants only');
    const view = seen.get(p.tenantId);
    if (!view) throw new Error('gone');
    const def: McpServerDefinition = {
      info: { name: 'spec', version: '1' },
      tools: { list: async () => view.tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })), call: async () => ({ content: [] }) },
      resources: {
        list: async () => ({ resources: view.servers.map((s) => ({ uri: `x://${s}`, name: s })) }),
        templates: async () => [],
        read: async () => ({ contents: [] }),
      },
    };
    return def;
  },
};

describe('the change streams of MCP routes', () => {
  let changed: () => void;
  let streams: McpChangeStreams;

  beforeEach(() => {
    seen.set('t-a', { tools: ['one'], servers: ['s1'] });
    seen.set('t-b', { tools: ['one'], servers: ['s9'] });
    const catalog = { onServerChanged: (l: () => void) => (changed = l) } as unknown as ToolCatalogService;
    streams = new McpChangeStreams(catalog);
  });

  afterEach(() => streams.onModuleDestroy());

  function listen(p: Principal): ListKind[] {
    const heard: ListKind[] = [];
    streams.open(route, p, (kind) => heard.push(kind));
    return heard;
  }

  it('announces, after a catalog change, each list that changed for that caller and nothing else', async () => {
    const [heardA, heardB] = [listen(a), listen(b)];
    changed();
    await streams.settled();
    expect([heardA, heardB]).toEqual([[], []]);

    seen.get('t-a')!.servers.push('s2');
    changed();
    await streams.settled();
    expect([heardA, heardB]).toEqual([['resources'], []]);

    seen.get('t-a')!.tools = ['one', 'two'];
    seen.get('t-b')!.tools = ['three'];
    seen.get('t-b')!.servers = [];
    changed();
    await streams.settled();
    expect([heardA, heardB]).toEqual([['resources', 'tools'], ['tools', 'resources']]);
  });

  it('builds the definition once per route and viewer after a change, and tells each of their streams', async () => {
    const other: McpRoute = { name: '/spec/other', definitionFor: route.definitionFor };
    const heard = [listen(a), listen(a), listen(a2), listen(b)];
    const heardOther: ListKind[] = [];
    streams.open(other, a, (kind) => heardOther.push(kind));
    await streams.settled();
    built.clear();
    seen.get('t-a')!.tools = ['one', 'two'];
    changed();
    await streams.settled();
    // Tenant A's three streams of /spec share one reading; B's and A's stream of the other route one each.
    expect(Object.fromEntries(built)).toEqual({ '/spec': 2, '/spec/other': 1 });
    expect(heard).toEqual([['tools'], ['tools'], ['tools'], []]);
    expect(heardOther).toEqual(['tools']);
  });

  it('announces the lists of a route gone for the caller once, and holds no stream once closed', async () => {
    const heard: ListKind[] = [];
    const close = streams.open(route, a, (kind) => heard.push(kind));
    seen.delete('t-a');
    changed();
    await streams.settled();
    expect(heard).toEqual(['tools', 'resources']);
    changed();
    await streams.settled();
    expect(heard).toEqual(['tools', 'resources']);
    close();
    expect(streams.size).toBe(0);
  });
});
