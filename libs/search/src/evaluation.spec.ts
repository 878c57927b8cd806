import { docsFromEvalServers, evaluate, EvalServer } from './evaluation';
import { ToolSearchIndex } from './tool-search-index';

const servers: EvalServer[] = [
  {
    id: 'time',
    name: 'Time',
    kind: 'INTERNAL',
    tools: [
      { name: 'get_current_time', description: 'Get current time in a specific timezone' },
      { name: 'convert_time', description: 'Convert time between timezones' },
    ],
  },
  { id: 'kv', name: 'Store', kind: 'CUSTOM', tools: [{ name: 'put_value', description: 'Store a value under a key' }] },
];

describe('evaluate', () => {
  const index = new ToolSearchIndex();
  for (const [id, docs] of docsFromEvalServers(servers, (s) => (s.id === 'kv' ? 'tenant-a' : null))) index.upsertServerTools(id, docs);

  it('turns evaluation servers into documents of the right owner', () => {
    const docs = docsFromEvalServers(servers, (s) => (s.id === 'kv' ? 'tenant-a' : null));
    expect(docs.get('kv')?.[0]).toMatchObject({ serverId: 'kv', serverName: 'Store', serverKind: 'CUSTOM', tenantId: 'tenant-a', toolName: 'put_value' });
    expect(docs.get('time')?.map((d) => d.tenantId)).toEqual([null, null]);
  });

  it('counts hits at 1 and 5 and the reciprocal rank of the first expected tool', () => {
    const result = evaluate(index, [
      { id: 'a', query: 'convert time between timezones', expected: [{ serverId: 'time', toolName: 'convert_time' }] },
      // the expected tool exists but ranks second
      { id: 'b', query: 'convert time between timezones', expected: [{ serverId: 'time', toolName: 'get_current_time' }] },
      // any of several expected tools counts
      { id: 'c', query: 'current time', expected: [{ serverId: 'nope', toolName: 'x' }, { serverId: 'time', toolName: 'get_current_time' }] },
      // a tool that no server has: the best guess the index always gives cannot be it
      { id: 'd', query: 'unrelated words entirely', expected: [{ serverId: 'time', toolName: 'set_alarm' }] },
    ]);
    expect(result.perQuery.map((q) => q.rank)).toEqual([1, 2, 1, null]);
    expect(result.recallAt1).toBe(0.5);
    expect(result.recallAt5).toBe(0.75);
    expect(result.mrr).toBeCloseTo((1 + 0.5 + 1 + 0) / 4);
    expect(result.perQuery[0].top[0]).toMatchObject({ serverId: 'time', toolName: 'convert_time' });
  });

  it('searches within the visibility it is given', () => {
    const q = [{ id: 'kv', query: 'store a value', expected: [{ serverId: 'kv', toolName: 'put_value' }] }];
    expect(evaluate(index, q, { visible: { type: 'tenant', tenantId: 'tenant-a' } }).recallAt1).toBe(1);
    expect(evaluate(index, q, { visible: { type: 'tenant', tenantId: 'tenant-b' } }).recallAt5).toBe(0);
  });
});
