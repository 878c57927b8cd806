import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stdioFixture } from '../fixtures/hostile-servers';
import { startTestApp, TestApp } from '../support/app';
import { createTestDatabase, TestDatabase } from '../support/database';
import { registerServer, settled } from '../support/servers';

/**
 * A stdio server runs in a directory of its own under the instance's DATA_DIR (never one shared by every
 * registry on the machine), which goes with the server: at once when it is deleted through this process, and at
 * the next start for servers that no longer exist.
 */
describe('stdio working directories', () => {
  let database: TestDatabase;
  let dataDir: string;
  let t: TestApp | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'mcpr-stdio-dirs-'));
  });

  afterAll(async () => {
    await t?.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = () => startTestApp({ database, env: { DATA_DIR: dataDir } });
  const dirOf = (id: string) => join(dataDir, 'stdio', id);
  const register = async (app: TestApp, name: string) => {
    const { id } = await registerServer(app, { name, kind: 'BUILT_IN', transport: 'stdio', ...stdioFixture('paginated-server.cjs', '3', '2') });
    const row = await settled(app, id);
    expect(row.status).toBe('CONNECTED');
    return id;
  };

  it("runs the command in DATA_DIR/stdio/<serverId>, removed with everything in it when the server is deleted", async () => {
    t = await start();
    const id = await register(t, 'workspace-deleted');
    expect(existsSync(dirOf(id))).toBe(true);
    expect(existsSync(join(tmpdir(), 'mcpr-stdio', id))).toBe(false);
    // What the command leaves in its HOME goes with it.
    writeFileSync(join(dirOf(id), 'notes.txt'), 'left by the server');

    const deleted = await t.request('DELETE', `/api/v1/servers/${id}`);
    expect(deleted.status).toBe(204);
    expect(existsSync(dirOf(id))).toBe(false);
  });

  it('removes, at a clean start, the directories of servers that no longer exist, and keeps the others', async () => {
    const kept = await register(t!, 'workspace-kept');
    expect(existsSync(dirOf(kept))).toBe(true);
    await t!.close();
    t = undefined;
    // A server deleted while this instance was down (through another replica, or straight in the database).
    const stray = randomUUID();
    mkdirSync(dirOf(stray), { recursive: true });
    writeFileSync(join(dirOf(stray), 'notes.txt'), 'left by a server deleted elsewhere');
    // Not a server's directory: left alone.
    mkdirSync(join(dataDir, 'stdio', 'not-a-server-id'), { recursive: true });

    t = await start();
    expect(existsSync(dirOf(stray))).toBe(false);
    expect(existsSync(dirOf(kept))).toBe(true);
    expect(existsSync(join(dataDir, 'stdio', 'not-a-server-id'))).toBe(true);
  });
});
