import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Something a test starts and must close again. */
export interface Closable {
  close(): unknown;
}

/**
 * Marks what the set-up started as to be closed after the describe's tests (by its close(), or by `close`: also a
 * last check on it): it returns what it was given.
 */
export interface Keep {
  <T extends Closable>(thing: T): T;
  <T>(thing: T, close: (thing: T) => unknown): T;
}

/**
 * What the tests of one `describe` stand on: `setup` runs in a `beforeAll` hook and returns it; everything it
 * gave to `keep` is closed by an `afterAll` hook, the last kept first (also what was kept before a set-up that
 * failed halfway). Both hooks are registered where this is called. The returned object reads through to what
 * `setup` returned: use its fields in tests and in the hooks declared after this call.
 */
export function useStand<T extends object>(setup: (keep: Keep) => Promise<T>, timeoutMs?: number): T {
  let made: T | undefined;
  const closers: (() => unknown)[] = [];
  const keep = (<C>(thing: C, close?: (thing: C) => unknown): C => {
    closers.push(() => (close ? close(thing) : (thing as Closable).close()));
    return thing;
  }) as Keep;
  const stand = (): T => {
    if (!made) throw new Error('the stand is not set up: use it in a test or in a hook declared after useStand');
    return made;
  };
  beforeAll(async () => {
    made = await setup(keep);
  }, timeoutMs);
  afterAll(async () => {
    // Every one is closed even when one before it fails; the first failure is the hook's.
    const failures: unknown[] = [];
    for (const close of closers.splice(0).reverse()) await Promise.resolve().then(close).catch((e: unknown) => failures.push(e));
    if (failures.length > 0) throw failures[0];
  });
  return readThrough(stand);
}

/** A new directory under the system's temporary one (its name starting with `prefix`), removed after the tests. */
export function tempDir(keep: Keep, prefix: string): string {
  return keep(mkdtempSync(join(tmpdir(), prefix)), (dir) => rmSync(dir, { recursive: true, force: true }));
}

/** An object whose every property read or written goes to what `current` returns (made later, in a hook). */
export function readThrough<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(current(), key),
    set: (_, key, value) => Reflect.set(current(), key, value),
  });
}
