import fc from 'fast-check';
import { exposedToolName, MAX_TOOL_NAME, memberPrefixes, nameTools } from './virtual-tool-names';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe('the tool names of a virtual server', () => {
  it('prefixes a tool with its server name made short and safe', () => {
    const prefixes = memberPrefixes([
      { id: '00000000-0000-4000-8000-000000000001', name: 'Everything' },
      { id: '00000000-0000-4000-8000-000000000002', name: 'server-memory (team A)' },
    ]);
    expect([...prefixes.values()]).toEqual(['everything', 'server_memory_team_a']);
    expect(exposedToolName('everything', 'echo')).toBe('everything__echo');
  });

  it('tells apart servers whose names give the same prefix by a hash of their ids, whatever their order', () => {
    const a = { id: '00000000-0000-4000-8000-00000000000a', name: 'github' };
    const b = { id: '00000000-0000-4000-8000-00000000000b', name: 'GitHub' };
    const one = memberPrefixes([a, b]);
    const other = memberPrefixes([b, a]);
    expect(one.get(a.id)).toMatch(/^github_[0-9a-f]{6}$/);
    expect(one.get(a.id)).not.toBe(one.get(b.id));
    expect(other).toEqual(one);
  });

  it('cuts long or foreign tool names to 64 valid characters, keeping them apart', () => {
    const long = 'x'.repeat(100);
    const names = [exposedToolName('everything', long), exposedToolName('everything', long + 'y'), exposedToolName('everything', 'get.weather/now')];
    for (const n of names) expect(n).toMatch(VALID);
    expect(new Set(names).size).toBe(3);
  });

  it('gives unique valid names of at most 64 characters for any servers and tools', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.uuid(), name: fc.string({ minLength: 1, maxLength: 200 }) }), { selector: (s) => s.id, minLength: 1, maxLength: 40 }),
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 128 }), { minLength: 1, maxLength: 8 }),
        (servers, toolNames) => {
          const prefixes = memberPrefixes(servers);
          const tools = servers.flatMap((s) => toolNames.map((toolName) => ({ serverId: s.id, toolName })));
          const named = nameTools(tools, prefixes);
          for (const t of named) {
            expect(t.name.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
            expect(t.name).toMatch(VALID);
          }
          expect(new Set(named.map((t) => t.name)).size).toBe(named.length);
          // The same input always gives the same names.
          expect(nameTools(tools, memberPrefixes([...servers].reverse()))).toEqual(named);
        },
      ),
      { numRuns: 200 },
    );
  });
});
