import { EmbeddedPostgres } from '@app/database-runtime';
import { listenStatements } from '../../libs/database-runtime/src/embedded-socket-server';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Notification } from 'pg';

/** A client of the embedded database that records the notifications it receives; `run` sends statements in order. */
async function connect(url: string): Promise<{ client: Client; heard: string[]; run(...statements: string[]): Promise<void> }> {
  const client = new Client({ connectionString: url });
  const heard: string[] = [];
  client.on('notification', (n: Notification) => heard.push(`${n.channel}:${n.payload}`));
  await client.connect();
  const run = async (...statements: string[]) => {
    for (const sql of statements) await client.query(sql);
  };
  return { client, heard, run };
}

/** A round trip on every client: whatever was sent to them before has arrived. */
async function settle(...clients: Client[]): Promise<void> {
  for (const c of clients) await c.query('SELECT 1');
}

async function listening(c: Client): Promise<string[]> {
  const { rows } = await c.query<{ ch: string }>('SELECT pg_listening_channels() AS ch ORDER BY 1');
  return rows.map((r) => r.ch);
}

describe('notifications on the embedded database (one shared session, many clients)', () => {
  let dir: string;
  let pg: EmbeddedPostgres;
  const clients: Client[] = [];
  const open = async () => {
    const c = await connect(pg.url);
    clients.push(c.client);
    return c;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpr-notify-'));
    pg = await EmbeddedPostgres.start(dir);
  }, 60_000);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
  });
  afterAll(async () => {
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves on a Unix domain socket in DATA_DIR that only its owner may connect to', async () => {
    const url = new URL(pg.url);
    expect(url.searchParams.get('host')).toBe(dir);
    const socket = statSync(join(dir, '.s.PGSQL.5432'));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    const { client } = await open();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('serves on loopback TCP when DATA_DIR is too deep for a Unix socket path', async () => {
    const deep = join(dir, 'a-directory-name-long-enough'.repeat(4));
    const other = await EmbeddedPostgres.start(deep);
    try {
      expect(new URL(other.url).hostname).toBe('127.0.0.1');
      const c = await connect(other.url);
      expect((await c.client.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      await c.client.end();
    } finally {
      await other.stop();
    }
  }, 60_000);

  it('delivers a notification to the client that listens, not to the one that notified', async () => {
    const a = await open();
    const b = await open();
    await a.run('LISTEN jobs');
    await b.run(`SELECT pg_notify('jobs', 'one')`, `NOTIFY jobs, 'two'`, `NOTIFY other, 'nobody listens'`);
    await settle(a.client, b.client);
    expect(a.heard).toEqual(['jobs:one', 'jobs:two']);
    expect(b.heard).toEqual([]);
  });

  it('delivers to every listener, the notifier too when it listens, and only after COMMIT', async () => {
    const a = await open();
    const b = await open();
    const c = await open();
    await a.run('LISTEN jobs');
    await b.run('LISTEN jobs', 'BEGIN', `NOTIFY jobs, 'in a transaction'`, 'COMMIT');
    await c.run('BEGIN', `NOTIFY jobs, 'rolled back'`, 'ROLLBACK');
    await settle(a.client, b.client, c.client);
    expect(a.heard).toEqual(['jobs:in a transaction']);
    expect(b.heard).toEqual(['jobs:in a transaction']);
    expect(c.heard).toEqual([]);
  });

  it('reads LISTEN behind comments, through the extended protocol, with quoted and folded names', async () => {
    const a = await open();
    const b = await open();
    await a.client.query({ name: 'listen-jobs', text: '-- Subscribe to the shared channel.\n/* a block comment */\nLISTEN bullmq_jobs;\n' });
    await a.run('LISTEN "Mixed Case"', 'listen Folded');
    await b.client.query(`SELECT pg_notify('bullmq_jobs', 'q'), pg_notify('Mixed Case', 'm'), pg_notify('folded', 'f')`);
    await settle(a.client);
    expect(a.heard.sort()).toEqual(['Mixed Case:m', 'bullmq_jobs:q', 'folded:f']);
  });

  it("keeps listening for a client when another's UNLISTEN is rolled back", async () => {
    const a = await open();
    const b = await open();
    const notifier = await open();
    await a.run('LISTEN rolled');
    await b.run('BEGIN', 'UNLISTEN rolled', 'ROLLBACK');
    await notifier.run(`NOTIFY rolled, 'still heard'`);
    await settle(a.client, b.client);
    expect(a.heard).toEqual(['rolled:still heard']);
    expect(b.heard).toEqual([]);
    expect(await listening(notifier.client)).toEqual(['rolled']);
  });

  it("keeps the shared session listening for the others when one client UNLISTENs or leaves", async () => {
    const a = await open();
    const b = await open();
    const notifier = await open();
    await a.run('LISTEN jobs');
    await b.run('LISTEN jobs', 'UNLISTEN jobs');
    await notifier.run(`NOTIFY jobs, 'after b left the channel'`);
    await b.run('LISTEN jobs', 'UNLISTEN *');
    await notifier.run(`NOTIFY jobs, 'after b left every channel'`);
    await b.run('LISTEN jobs');
    await b.client.end();
    await new Promise((r) => setTimeout(r, 50));
    await notifier.client.query(`NOTIFY jobs, 'after b disconnected'`);
    await settle(a.client, notifier.client);
    expect(a.heard).toEqual(['jobs:after b left the channel', 'jobs:after b left every channel', 'jobs:after b disconnected']);
    expect(b.heard).toEqual([]);
    expect(await listening(notifier.client)).toEqual(['jobs']);
    // The last listener gone: the session stops listening (once the server has seen the client leave).
    await a.client.end();
    const deadline = Date.now() + 5000;
    while ((await listening(notifier.client)).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await listening(notifier.client)).toEqual([]);
  });

  it('names the channels of LISTEN and UNLISTEN statements, and nothing else', () => {
    expect(listenStatements('LISTEN a; UNLISTEN "B"; unlisten *; SELECT 1; listen  c ;')).toEqual([
      { listen: true, channel: 'a' },
      { listen: false, channel: 'B' },
      { listen: false, channel: '*' },
      { listen: true, channel: 'c' },
    ]);
    expect(listenStatements("SELECT 'LISTEN x'")).toEqual([]);
    expect(listenStatements("-- LISTEN x\nSELECT 1")).toEqual([]);
    expect(listenStatements('LISTEN *')).toEqual([]);
  });
});
