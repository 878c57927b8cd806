import { timeOrderedUuid } from './ids';

describe('timeOrderedUuid', () => {
  const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('is a version 7 UUID carrying the time in milliseconds', () => {
    const at = Date.UTC(2026, 10, 30, 12, 0, 0, 123);
    const id = timeOrderedUuid(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts in the order the ids were made, within one millisecond too, and never repeats', () => {
    const at = Date.now() + 60_000;
    const ids = Array.from({ length: 5000 }, () => timeOrderedUuid(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // Past 4,096 in one millisecond, the next millisecond is borrowed rather than the order broken.
    expect(parseInt(ids[ids.length - 1].replace(/-/g, '').slice(0, 12), 16)).toBe(at + 1);
    // A clock that goes back keeps the order as well.
    const after = timeOrderedUuid(at - 10_000);
    expect(after > ids[ids.length - 1]).toBe(true);
    for (const id of [...ids.slice(0, 3), after]) expect(id).toMatch(UUID_V7);
  });
});
