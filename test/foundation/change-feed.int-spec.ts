import { ChangeFeed, ChangeFeedRepository, FeedChange, Sql, VirtualServerFeedChange } from '@app/database';
import { EmbeddedPostgres, migrate } from '@app/database-runtime';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { createEmptyDatabase, ScratchDatabase } from './scratch-database';

interface Backend {
  name: string;
  open(): Promise<{ url: string; close(): Promise<void> }>;
}

/** The machine's PostgreSQL when the run has one, and always the embedded one (one session shared by every connection). */
const BACKENDS: Backend[] = [
  ...(process.env.TEST_DATABASE_URL
    ? [{ name: 'PostgreSQL', open: async () => {
        const db: ScratchDatabase = await createEmptyDatabase();
        return { url: db.url, close: () => db.drop() };
      } }]
    : []),
  {
    name: 'the embedded PostgreSQL (PGlite)',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcpr-feed-'));
      const pg = await EmbeddedPostgres.start(dir);
      return {
        url: pg.url,
        close: async () => {
          await pg.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

describe.each(BACKENDS)('the change feed on $name', (backend) => {
  let db: { url: string; close(): Promise<void> };
  let pool: Pool;
  let writer: Client;
  const feeds: ChangeFeed[] = [];

  beforeAll(async () => {
    db = await backend.open();
    await migrate(db.url);
    pool = new Pool({ connectionString: db.url, max: 3 });
    writer = new Client({ connectionString: db.url });
    await writer.connect();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(feeds.splice(0).map((f) => f.onModuleDestroy()));
  });
  afterAll(async () => {
    await writer?.end();
    await pool?.end();
    await db?.close();
  });

  /** The log's reader, counting its reads. */
  class CountedLog extends ChangeFeedRepository {
    reads = 0;
    override changesSince(xmin: bigint): ReturnType<ChangeFeedRepository['changesSince']> {
      this.reads++;
      return super.changesSince(xmin);
    }
  }

  /** A started feed and everything it delivers. */
  async function startFeed(listenUrl = db.url, options: { gatherMs?: number } = {}): Promise<{ feed: ChangeFeed; heard: FeedChange[]; liveness: boolean[]; log: CountedLog }> {
    const log = new CountedLog(new Sql(pool));
    const feed = new ChangeFeed(log, { connectionString: listenUrl, ...options });
    feeds.push(feed);
    const heard: FeedChange[] = [];
    const liveness: boolean[] = [];
    feed.subscribe({ changes: (c) => void heard.push(...c), live: (l) => void liveness.push(l) });
    await feed.onModuleInit();
    return { feed, heard, liveness, log };
  }

  async function until<T>(what: string, probe: () => T | undefined, ms: number): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = probe();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async function addServer(tenantId: string | null): Promise<string> {
    const id = randomUUID();
    if (tenantId) await writer.query(`INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [tenantId, `t-${tenantId}`]);
    await writer.query(
      `INSERT INTO servers (id, tenant_id, owner_scope, name, kind, transport, url, status)
       VALUES ($1, $2, $3, $4, $5, 'STREAMABLE_HTTP', 'http://x.test/mcp', 'DISCOVERING')`,
      [id, tenantId, tenantId ?? 'platform', `s-${id}`, tenantId ? 'CUSTOM' : 'BUILT_IN'],
    );
    return id;
  }

  it('delivers each committed change within milliseconds of its commit, with the owner and whether it is bookkeeping only', async () => {
    const { feed, heard } = await startFeed();
    await until('listening', () => (feed.live ? true : undefined), 10_000);
    const tenant = randomUUID();
    const mine = await addServer(tenant);
    await until('the registration', () => heard.find((c) => c.serverId === mine), 2000);
    expect(heard.find((c) => c.serverId === mine)).toEqual({ serverId: mine, tenantId: tenant, bookkeeping: false });

    heard.length = 0;
    const started = Date.now();
    await writer.query(`INSERT INTO tools (id, server_id, name, input_schema, hash, position) VALUES ($1, $2, 'a', '{}', 'h', 0)`, [randomUUID(), mine]);
    await until('the new tool', () => heard.find((c) => c.serverId === mine), 2000);
    // Woken by the notification, not by the periodic read (every second while not listening, every 10 s while it is).
    expect(Date.now() - started).toBeLessThan(800);

    heard.length = 0;
    await writer.query(`UPDATE server_discovery SET lease_owner = 'w', lease_until = now() WHERE server_id = $1`, [mine]);
    expect(await until('the lease', () => heard.find((c) => c.serverId === mine), 2000)).toEqual({ serverId: mine, tenantId: tenant, bookkeeping: true });

    heard.length = 0;
    await writer.query(`DELETE FROM servers WHERE id = $1`, [mine]);
    await until('the deletion', () => heard.find((c) => c.serverId === mine), 2000);
    expect(heard.filter((c) => c.serverId === mine)).toEqual([{ serverId: mine, tenantId: tenant, bookkeeping: false }]);
  }, 30_000);

  it('delivers nothing of a transaction rolled back, and one change per server of a transaction that touched it often', async () => {
    const { feed, heard } = await startFeed();
    await until('listening', () => (feed.live ? true : undefined), 10_000);
    const id = await addServer(null);
    await until('the registration', () => heard.find((c) => c.serverId === id), 2000);
    heard.length = 0;
    await writer.query('BEGIN');
    await writer.query(`UPDATE servers SET name = 'rolled back' WHERE id = $1`, [id]);
    await writer.query('ROLLBACK');
    await writer.query('BEGIN');
    for (let i = 0; i < 3; i++) await writer.query(`UPDATE servers SET metadata = $2 WHERE id = $1`, [id, JSON.stringify({ i: String(i) })]);
    await writer.query('COMMIT');
    await feed.read();
    expect(heard).toEqual([{ serverId: id, tenantId: null, bookkeeping: false }]);
  });

  it('answers a burst of commits with a read per gather time, not one per commit, and delivers every change', async () => {
    const gatherMs = 50;
    const { feed, heard, log } = await startFeed(db.url, { gatherMs });
    await until('listening', () => (feed.live ? true : undefined), 10_000);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await addServer(null));
    await until('the registrations', () => (ids.every((id) => heard.some((c) => c.serverId === id)) ? true : undefined), 2000);
    heard.length = 0;
    const readsBefore = log.reads;
    const started = Date.now();
    const commits = 40;
    for (let i = 0; i < commits; i++) await writer.query(`UPDATE servers SET metadata = $2 WHERE id = $1`, [ids[i % ids.length], JSON.stringify({ i: String(i) })]);
    const elapsed = Date.now() - started;
    await until('every change', () => (ids.every((id) => heard.some((c) => c.serverId === id)) ? true : undefined), 2000);
    const reads = log.reads - readsBefore;
    // One read at the first notification, then at most one per gather time while the commits go on, and one after.
    expect(reads).toBeLessThanOrEqual(Math.ceil(elapsed / gatherMs) + 2);
    expect(reads).toBeLessThan(commits / 2);

    // After a quiet spell a change is read at once, not held for the gather time of a read long past.
    await new Promise((r) => setTimeout(r, gatherMs * 2));
    heard.length = 0;
    const quietReads = log.reads;
    await writer.query(`UPDATE servers SET name = 'after the burst' WHERE id = $1`, [ids[0]]);
    await until('the change after the burst', () => heard.find((c) => c.serverId === ids[0]), 2000);
    expect(log.reads - quietReads).toBe(1);
  }, 30_000);

  it('reads the log every second when it cannot listen, and says that it is not live', async () => {
    // Nothing listens at this address: the notifications cannot reach the feed, the log still does.
    const { feed, heard, liveness } = await startFeed('postgresql://nobody@127.0.0.1:1/none');
    expect(feed.live).toBe(false);
    const id = await addServer(null);
    const started = Date.now();
    await until('the registration, by the periodic read', () => heard.find((c) => c.serverId === id), 5000);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(liveness).not.toContain(true);
  });

  it('gets a change to a reader that failed again with the next read, and to the others once', async () => {
    const { feed, heard } = await startFeed();
    let failures = 1;
    const retried: string[] = [];
    feed.subscribe({
      changes: (changes) => {
        if (failures-- > 0) throw new Error('not now');
        retried.push(...changes.map((c) => c.serverId));
      },
    });
    const id = await addServer(null);
    // Whichever read came first (woken, or this one) failed for that reader; the next, a second later, brings it again.
    await feed.read().catch(() => undefined);
    await until('the change again', () => (retried.includes(id) ? true : undefined), 5000);
    expect(failures).toBeLessThan(0);
    expect(heard.filter((c) => c.serverId === id).length).toBeGreaterThanOrEqual(1);
  });

  it("delivers a virtual server's own changes to the readers of virtual servers, once per virtual server, and none to the readers of servers", async () => {
    const { feed, heard } = await startFeed();
    const virtualHeard: VirtualServerFeedChange[] = [];
    feed.subscribe({ virtualServers: (c) => void virtualHeard.push(...c) });
    await until('listening', () => (feed.live ? true : undefined), 10_000);
    const tenant = randomUUID();
    const member = await addServer(tenant);
    const other = await addServer(tenant);
    await feed.read();
    heard.length = 0;
    const id = randomUUID();
    // Made with its members in one transaction: one change.
    await writer.query('BEGIN');
    await writer.query(`INSERT INTO virtual_servers (id, tenant_id, owner_scope, name) VALUES ($1, $2, $3, 'pair')`, [id, tenant, tenant]);
    await writer.query(`INSERT INTO virtual_server_members (virtual_server_id, position, server_id) VALUES ($1, 0, $2), ($1, 1, $3)`, [id, member, other]);
    await writer.query('COMMIT');
    const started = Date.now();
    await until('the virtual server made', () => virtualHeard.find((c) => c.virtualServerId === id), 2000);
    expect(Date.now() - started).toBeLessThan(800);
    await feed.read();
    expect(virtualHeard).toEqual([{ virtualServerId: id, tenantId: tenant }]);

    // Its members alone, written without touching its row, are its change too.
    virtualHeard.length = 0;
    await writer.query(`DELETE FROM virtual_server_members WHERE virtual_server_id = $1 AND position = 1`, [id]);
    await until('the members changed', () => virtualHeard.find((c) => c.virtualServerId === id), 2000);
    // A member server deleted leaves its selections: a change of the server and of the virtual server.
    virtualHeard.length = 0;
    await writer.query(`DELETE FROM servers WHERE id = $1`, [member]);
    await until('the member server gone', () => virtualHeard.find((c) => c.virtualServerId === id), 2000);
    await until('the server gone', () => heard.find((c) => c.serverId === member), 2000);
    virtualHeard.length = 0;
    await writer.query(`DELETE FROM virtual_servers WHERE id = $1`, [id]);
    await until('the deletion', () => virtualHeard.find((c) => c.virtualServerId === id), 2000);
    await feed.read();
    expect(virtualHeard).toEqual([{ virtualServerId: id, tenantId: tenant }]);
    // The readers of servers heard of servers only.
    expect(heard.every((c) => typeof c.serverId === 'string' && c.serverId !== id)).toBe(true);
  }, 30_000);
});
