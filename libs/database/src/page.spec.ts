import { InvalidInputError } from '@app/domain';
import { decodeCursor, encodeCursor, toPage } from './page';

describe('page tokens', () => {
  const cursor = { at: new Date('2026-01-02T03:04:05.678Z'), id: '0b7d1a3e-9a55-4c2e-8f0e-2a7c1f6d9b10' };

  it('round-trips a cursor', () => {
    expect(decodeCursor('servers', encodeCursor('servers', cursor))).toEqual(cursor);
  });

  it('refuses a token of another list, garbage and oversize tokens', () => {
    const token = encodeCursor('servers', cursor);
    for (const bad of [encodeCursor('audit', cursor), 'not a token!', 'abc', 'x'.repeat(600), Buffer.from('{"l":"servers","t":"nope","i":"1"}').toString('base64url')]) {
      expect(() => decodeCursor('servers', bad)).toThrow(InvalidInputError);
    }
    expect(() => decodeCursor('servers', token)).not.toThrow();
  });

  it('gives a next token only when more rows follow', () => {
    const rows = [1, 2, 3].map((n) => ({ n, at: new Date(n * 1000), id: cursor.id }));
    expect(toPage(rows, 3, 'x', (r) => r).nextPageToken).toBeUndefined();
    const page = toPage(rows, 2, 'x', (r) => r);
    expect(page.items.map((r) => r.n)).toEqual([1, 2]);
    expect(decodeCursor('x', page.nextPageToken!).at).toEqual(new Date(2000));
  });
});
