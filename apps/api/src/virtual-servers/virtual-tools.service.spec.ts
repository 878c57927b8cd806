import { VirtualServerRecord } from '@app/database';
import { ToolDefinition } from '@app/domain';
import type { CallToolInput } from '@app/mcp-server';
import fc from 'fast-check';
import { virtualDefinition } from './virtual-mcp-server';
import { memberPrefixes, serversNamedBy } from './virtual-tool-names';
import { distinctServers, listedTools, VirtualTool } from './virtual-tools.service';

/** Server names that make alike prefixes (cut at 20 characters, case and punctuation folded). */
const SERVER_NAMES = ['github', 'GitHub', 'git hub', 'git_hub', 'x'.repeat(25) + 'a', 'x'.repeat(25) + 'b', 'memory', '!!!'];
/** Tool names that need cutting, cleaning or a hash, and some that look like listed names. */
const TOOL_NAMES = ['echo', 'get.weather/now', 'a__b', '_x', 'x'.repeat(70), 'x'.repeat(70) + 'y', 'github__echo', 'memory__read'];

const arbitraryVirtual = fc
  .uniqueArray(fc.record({ id: fc.uuid(), name: fc.constantFrom(...SERVER_NAMES) }), { selector: (s) => s.id, minLength: 1, maxLength: 6 })
  .chain((servers) =>
    fc.record({
      servers: fc.constant(servers),
      members: fc.array(fc.record({ server: fc.constantFrom(...servers), toolName: fc.option(fc.constantFrom(...TOOL_NAMES), { nil: null }) }), { minLength: 1, maxLength: 10 }),
      tools: fc.array(fc.uniqueArray(fc.constantFrom(...TOOL_NAMES), { maxLength: TOOL_NAMES.length }), { minLength: servers.length, maxLength: servers.length }),
    }),
  );

describe("a virtual server's tool looked up by its listed name", () => {
  it('reads only the member its prefix names, and finds exactly what the whole list holds under that name', () => {
    fc.assert(
      fc.property(arbitraryVirtual, fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }), ({ servers, members, tools }, strangers) => {
        const virtual: VirtualServerRecord = {
          id: 'v',
          tenantId: null,
          name: 'v',
          description: null,
          members: members.map((m) => ({ serverId: m.server.id, serverName: m.server.name, toolName: m.toolName })),
          createdAt: new Date(0),
          updatedAt: new Date(0),
        };
        const definitions = new Map<string, ToolDefinition[]>(servers.map((s, i) => [s.id, tools[i].map((name) => ({ name, inputSchema: { type: 'object' } }) as ToolDefinition)]));
        const prefixes = memberPrefixes(distinctServers(virtual));
        const whole = listedTools(virtual, prefixes, definitions);
        const lookUp = (name: string) => {
          const named = serversNamedBy(name, prefixes);
          return named.length === 0 ? undefined : listedTools(virtual, prefixes, definitions, new Set(named)).find((t) => t.name === name);
        };
        for (const t of whole) {
          // One member is read: the one that listed it (two only if two prefixes came out alike).
          expect(serversNamedBy(t.name, prefixes)).toContain(t.serverId);
          expect(lookUp(t.name)).toEqual(t);
        }
        for (const name of [...strangers, ...whole.map((t) => `${t.name}x`), ...[...prefixes.values()].map((p) => `${p}__nothing-listed`)]) {
          expect(lookUp(name)).toEqual(whole.find((t) => t.name === name));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("a virtual server's tools/call", () => {
  it('looks up the one tool called, and never lists every member', async () => {
    const virtual: VirtualServerRecord = { id: 'v', tenantId: null, name: 'pair', description: null, members: [], createdAt: new Date(0), updatedAt: new Date(0) };
    const echo: VirtualTool = {
      name: 'alpha__echo',
      serverId: 's-alpha',
      toolName: 'echo',
      prefix: 'alpha',
      definition: { name: 'alpha__echo', inputSchema: { type: 'object' }, _meta: {} } as VirtualTool['definition'],
    };
    const asked: string[] = [];
    const routed: CallToolInput[] = [];
    const definition = virtualDefinition(virtual, '1', {
      tools: async () => {
        throw new Error('a call must not list every tool');
      },
      tool: async (name) => {
        asked.push(name);
        return name === echo.name ? echo : undefined;
      },
      call: async (input) => {
        routed.push(input);
        return { content: [{ type: 'text', text: 'echoed' }] };
      },
      resources: { list: async () => ({ resources: [] }), templates: async () => [], read: async () => ({ contents: [] }) },
      prompts: { list: async () => [], get: async () => ({ messages: [] }) },
    });
    const context = { signal: new AbortController().signal };
    expect(await definition.tools!.call('alpha__echo', { message: 'hi' }, context)).toEqual({ content: [{ type: 'text', text: 'echoed' }] });
    expect(routed).toEqual([{ serverId: 's-alpha', toolName: 'echo', arguments: { message: 'hi' } }]);
    await expect(definition.tools!.call('alpha__nothing', {}, context)).rejects.toThrow(/Unknown tool: alpha__nothing/);
    expect(asked).toEqual(['alpha__echo', 'alpha__nothing']);
  });
});
