import { canonicalJson, checkTool, MAX_DROPPED_REPORTED, MAX_TOOL_BYTES, ToolCollector, toolHash } from './tool-definition';

const tool = (extra: Record<string, unknown> = {}) => ({ name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, ...extra });

describe('canonical tool definitions', () => {
  it('writes equal definitions the same whatever the key order, at every depth', () => {
    const a = { b: 1, a: { y: [3, { d: 1, c: 2 }], x: null } };
    const b = { a: { x: null, y: [3, { c: 2, d: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[3,{"c":2,"d":1}]},"b":1}');
  });

  it('hashes the whole definition: a change to any field, however deep, is a change', () => {
    const base = toolHash(tool({ description: 'Finds things' }));
    expect(toolHash(tool({ description: 'Finds things' }))).toBe(base);
    expect(toolHash(tool({ description: 'Finds things!' }))).not.toBe(base);
    expect(toolHash(tool({ description: 'Finds things', annotations: { readOnlyHint: true } }))).not.toBe(base);
    const deeper = tool({ description: 'Finds things' });
    (deeper.inputSchema.properties as Record<string, unknown>).q = { type: 'string', minLength: 1 };
    expect(toolHash(deeper)).not.toBe(base);
  });

  it('keeps every field MCP defines for a tool (icons, execution, _meta included) and hashes exactly what it keeps', () => {
    const listed = tool({ description: 'Finds things', icons: [{ src: 'https://x.example/i.png', sizes: ['48x48'] }], execution: { taskSupport: 'optional' }, _meta: { 'a.example/k': 1 } });
    const check = checkTool({ ...listed, unknownField: 'not stored' });
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    const { hash, ...kept } = check.tool;
    expect(kept).toEqual(listed);
    expect(hash).toBe(toolHash(listed as never));
  });

  it('hashes the RFC 8785 canonical form (sorted keys, ECMAScript number form)', () => {
    expect(canonicalJson({ b: 1e21, a: [1.0, 'é', null] })).toBe('{"a":[1,"é",null],"b":1e+21}');
    // RFC 8785, section 3.2.2's example: numbers in ECMAScript form, strings escaped minimally, keys sorted
    const rfc = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(rfc)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
    // keys sorted by UTF-16 code units, not by code points
    expect(canonicalJson({ '\u{1F600}': 1, '\uFB33': 2 })).toBe('{"\u{1F600}":1,"\uFB33":2}');
    const a = tool({ execution: { taskSupport: 'required' } });
    expect(toolHash(a as never)).not.toBe(toolHash(tool({ execution: { taskSupport: 'optional' } }) as never));
  });
});

describe('checking one tool at a time', () => {
  it.each([
    ['not an object', 'search', 'the entry is not an object'],
    ['no name', { inputSchema: { type: 'object' } }, 'name is missing or not a string'],
    ['an empty name', { name: '', inputSchema: { type: 'object' } }, 'name is missing or not a string'],
    ['a name of control characters', { name: 'a\nb', inputSchema: { type: 'object' } }, 'name contains control characters'],
    ['a name too long', { name: 'x'.repeat(300), inputSchema: { type: 'object' } }, 'name is longer than 256 characters'],
    ['no inputSchema', { name: 't' }, 'inputSchema is missing or not an object'],
    ['an inputSchema that is a string', { name: 't', inputSchema: 'object' }, 'inputSchema is missing or not an object'],
    ['an inputSchema of another type', { name: 't', inputSchema: { type: 'array' } }, 'inputSchema is not a schema of type "object"'],
    ['a description that is a number', { name: 't', description: 3, inputSchema: { type: 'object' } }, 'description is not a string'],
    ['annotations that are a list', { name: 't', annotations: [], inputSchema: { type: 'object' } }, 'annotations is not an object'],
    ['icons that are not a list', { name: 't', icons: { src: 'x' }, inputSchema: { type: 'object' } }, 'icons is not an array'],
    ['an execution that is a string', { name: 't', execution: 'task', inputSchema: { type: 'object' } }, 'execution is not an object'],
    ['a _meta that is a list', { name: 't', _meta: [], inputSchema: { type: 'object' } }, '_meta is not an object'],
    ['a definition over the size bound', { name: 't', description: 'x'.repeat(MAX_TOOL_BYTES), inputSchema: { type: 'object' } }, 'the definition is larger than 256 KiB'],
  ])('drops a tool with %s', (_label, raw, reason) => {
    const check = checkTool(raw);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toBe(reason);
  });

  it("leaves out of _meta the registry's own marks, which only the registry writes (an owner's override, a source)", () => {
    const check = checkTool(tool({ _meta: { 'dev.mcp-registry/override': { fields: ['description'] }, 'dev.mcp-registry/source': {}, 'vendor.example/x': 1 } }));
    expect(check.ok && check.tool._meta).toEqual({ 'vendor.example/x': 1 });
  });

  it('keeps an output schema whose root is not an object schema (allowed since 2026-07-28), and treats null fields as absent', () => {
    const check = checkTool({ name: 'colors', title: null, inputSchema: { type: 'object' }, outputSchema: { type: 'array', items: { type: 'string' } } });
    expect(check.ok && check.tool).toEqual({
      name: 'colors',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'array', items: { type: 'string' } },
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});

describe('collecting a listing', () => {
  it('keeps the first of two tools with one name and reports the second', () => {
    const c = new ToolCollector();
    c.add(tool({ description: 'first' }));
    c.add({ broken: true });
    c.add(tool({ description: 'second' }));
    expect(c.tools.map((t) => t.description)).toEqual(['first']);
    expect(c.dropped).toEqual([
      { index: 1, reason: 'name is missing or not a string' },
      { index: 2, name: 'search', reason: 'duplicate name (first listed at position 0)' },
    ]);
  });

  it('describes at most a bounded number of dropped tools and counts the rest', () => {
    const c = new ToolCollector();
    for (let i = 0; i < MAX_DROPPED_REPORTED + 50; i++) c.add({ name: `t${i}` });
    expect(c.dropped).toHaveLength(MAX_DROPPED_REPORTED);
    expect(c.droppedCount).toBe(MAX_DROPPED_REPORTED + 50);
    expect(c.listed).toBe(MAX_DROPPED_REPORTED + 50);
  });
});
