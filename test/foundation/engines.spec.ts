import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion, satisfies } from 'semver';

const ROOT = join(__dirname, '..', '..');

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  dev?: boolean;
  optional?: boolean;
}

/**
 * Packages that declare a newer Node than the registry supports, kept on purpose. Each is loaded only by a
 * command the registry never runs; everything `npm ci`, `npm start`, `npm test` and the build load accepts Node 20.
 */
const ACCEPTED: Record<string, string> = {
  '@prisma/streams-local':
    "prisma's `prisma dev` (a local Prisma Postgres server); every version declares Node 22. `prisma generate`, " +
    'the only prisma command the registry runs, does not load it, and the prisma CLI itself declares ^20.19',
};

/**
 * What is declared (package.json `engines`), what is installed (the lock file) and what is tested (the Node
 * running the tests) agree: no installed package asks for a Node that the declared minimum is not, and the Node
 * running here is one the declaration accepts.
 */
describe('the Node versions the registry runs on', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const declared = pkg.engines.node;
  const minimum = minVersion(declared)!.version;

  it('is declared for Node 20, and the Node running the tests is one of them', () => {
    expect(satisfies('20.19.0', declared)).toBe(true);
    expect(satisfies(process.versions.node, declared)).toBe(true);
  });

  it('installs only packages whose engines accept the declared minimum, but for the few accepted with a reason', () => {
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!path) continue;
      const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!node) continue;
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      if (ACCEPTED[name]) continue;
      if (!satisfies(minimum, node, { includePrerelease: true }) || !satisfies(process.versions.node, node, { includePrerelease: true })) {
        refusing.push(`${name}@${entry.version} wants node ${node}`);
      }
    }
    expect(refusing).toEqual([]);
  });
});
