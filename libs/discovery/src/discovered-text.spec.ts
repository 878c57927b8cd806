import { MAX_DISCOVERED_DEPTH, storableJson, storableText, UncleanableError } from './discovered-text';

describe('discovered text made storable', () => {
  it('removes U+0000 and lone surrogates, keeping surrogate pairs', () => {
    expect(storableText('a\u0000b')).toBe('ab');
    expect(storableText('\ud800x\udc00y\udbff')).toBe('xy');
    expect(storableText('pair \ud83d\ude00 kept')).toBe('pair \ud83d\ude00 kept');
    expect(storableText('\udc00\ud800')).toBe('');
  });

  it('cleans strings and keys at every depth, and redacts what is left', () => {
    const value = { 'k\u0000': ['x\u0000', { deep: 'tok-secret\ud800' }], n: 1, b: true, z: null };
    expect(storableJson(value, 'v', (t) => t.split('tok-secret').join('[redacted]'))).toEqual({ k: ['x', { deep: '[redacted]' }], n: 1, b: true, z: null });
  });

  it('refuses, naming the field, keys that become one and nesting past the bound', () => {
    expect(() => storableJson({ p: { a: 1, 'a\u0000': 2 } }, 'tools[0].inputSchema')).toThrow(
      new UncleanableError('tools[0].inputSchema.p', 'has two keys that are the same once cleaned ("a")'),
    );
    expect(() => storableJson({ 'a\u0000': 1, a: 2 }, 'capabilities')).toThrow(new UncleanableError('capabilities', 'has two keys that are the same once cleaned ("a")'));
    expect(() => storableJson({ list: [{}, { 'odd key': { x: 1, 'x\u0000': 2 } }] }, 'tools[1]')).toThrow(
      new UncleanableError('tools[1].list[1]["odd key"]', 'has two keys that are the same once cleaned ("x")'),
    );
    const proto = storableJson(JSON.parse('{"__proto__": {"polluted": true}}'), 'v') as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(JSON.stringify(proto)).toBe('{"__proto__":{"polluted":true}}');
    // The bound is the cleaning walk's: a deep value that needs cleaning is refused.
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < MAX_DISCOVERED_DEPTH + 1; i++) deep = [deep];
    expect(() => storableJson(deep, 'capabilities')).toThrow(UncleanableError);
    // and so is one that needs no cleaning, however deep (too deep to serialize included)
    for (const levels of [MAX_DISCOVERED_DEPTH + 1, 20_000]) {
      let clean: unknown = 'x';
      for (let i = 0; i < levels; i++) clean = [clean];
      expect(() => storableJson(clean, 'capabilities')).toThrow(UncleanableError);
    }
    let within: unknown = 'x';
    for (let i = 0; i < MAX_DISCOVERED_DEPTH - 1; i++) within = [within];
    expect(storableJson(within, 'capabilities')).toBe(within);
  });
});
