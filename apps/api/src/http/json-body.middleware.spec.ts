import { InvalidInputError } from '@app/domain';
import { inspectBody, MAX_BODY_DEPTH } from './json-body.middleware';

describe('inspectBody', () => {
  it('accepts ordinary bodies', () => {
    expect(() => inspectBody({ name: 'x', metadata: { a: 'b' }, args: ['1', '2'], credentials: { headers: { 'X-Key': 'v' } } })).not.toThrow();
  });

  it.each([
    [JSON.parse('{"__proto__":{"admin":true}}'), '__proto__'],
    [JSON.parse('{"metadata":{"__proto__":"x"}}'), 'metadata.__proto__'],
    [{ a: [{ constructor: { prototype: {} } }] }, 'a.0.constructor'],
    [{ x: { prototype: 1 } }, 'x.prototype'],
  ])('refuses a prototype-reaching key, naming where', (body, field) => {
    try {
      inspectBody(body);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).errors?.[0].field).toBe(field);
    }
  });

  it('lets tool arguments use any key but __proto__', () => {
    expect(() => inspectBody({ serverId: 'x', toolName: 't', arguments: { prototype: 'p1', nested: { constructor: 'c' } } })).not.toThrow();
    expect(() => inspectBody(JSON.parse('{"arguments":{"a":{"__proto__":{}}}}'))).toThrow('arguments.a.__proto__');
    expect(() => inspectBody({ metadata: { arguments: { prototype: 1 } } })).toThrow('metadata.arguments.prototype');
  });

  it('refuses absurd nesting without recursing', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(() => inspectBody(deep)).toThrow(`nested more than ${MAX_BODY_DEPTH} levels deep`);
    let ok: unknown = 'leaf';
    for (let i = 0; i < MAX_BODY_DEPTH - 1; i++) ok = [ok];
    expect(() => inspectBody(ok)).not.toThrow();
  });
});
