import { Client } from 'pg';
import { AnswerCache } from '../../apps/api/src/common/answer-cache';
import { everythingStdio } from '../fixtures/reference-servers';
import { useTestApp } from '../support/app';
import { waitFor } from '../support/servers';

/**
 * The embedded default (`npm start` with no environment): PGlite behind one
 * loopback socket shared by Prisma's pool, the queue and the worker. Many
 * clients at once must never see each other's protocol state.
 */
describe('the embedded default under concurrent load', () => {
  const t = useTestApp({ embedded: true, env: { DISCOVERY_CONCURRENCY: '4' } });
  beforeAll(async () => {
  }, 90_000);

  it('runs on the embedded database with the queue in it', async () => {
    const ready = await t.request('GET', '/health/ready', { key: null });
    expect(ready.body).toMatchObject({ status: 'ok', queueBackend: 'postgres', embeddedDatabase: true });
  });

  it('answers concurrent writes and reads while discoveries run, with no error, and every server settles', async () => {
    const writes = Array.from({ length: 12 }, (_, i) =>
      t.request('POST', '/api/v1/servers', {
        body: { name: `everything-${i}`, kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'stdio', ...everythingStdio() },
      }),
    );
    const reads = Array.from({ length: 24 }, () => t.request('GET', '/api/v1/servers?pageSize=100'));
    const results = await Promise.all([...writes, ...reads]);
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.slice(0, 12).map((r) => r.status)).toEqual(Array(12).fill(201));

    const deadline = Date.now() + 60_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      // Reads keep coming while discoveries write: none may fail.
      const list = await t.request('GET', '/api/v1/servers?pageSize=100&kind=2');
      expect(list.status).toBe(200);
      statuses = list.body.servers.map((s: { status: string }) => s.status);
      if (statuses.length === 12 && statuses.every((s) => s !== 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(statuses).toEqual(Array(12).fill('MCP_SERVER_CONNECTION_STATUS_CONNECTED'));
    expect(t.logs()).not.toMatch(/portal .* does not exist|"statusCode":500/);
  }, 90_000);

  it('keeps read answers, and drops one as soon as another connection changes its server', async () => {
    const cache = t.app.get(AnswerCache);
    await waitFor('listening for registry changes', async () => cache.active, 10_000, 20);
    const created = await t.request('POST', '/api/v1/servers', {
      body: { name: 'kept-embedded', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'stdio', ...everythingStdio() },
    });
    const id = created.body.id as string;
    const info = () => t.request('POST', '/api/v1/llm/mcp-get-server-info', { body: { serverId: id } });
    await waitFor('discovered', async () => (await info()).body.status === 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', 60_000, 100);
    await info();
    const hits = cache.stats.hits;
    expect((await info()).body.version).not.toBe('9.9.9');
    expect(cache.stats.hits).toBe(hits + 1);
    // Another connection (as a worker in another process would) changes the server: the kept answer goes.
    const other = new Client({ connectionString: t.runtime.embedded!.url });
    await other.connect();
    try {
      await other.query(`UPDATE servers SET server_version = '9.9.9' WHERE id = $1`, [id]);
    } finally {
      await other.end();
    }
    await waitFor('the changed answer', async () => (await info()).body.version === '9.9.9', 5000, 5);
  }, 90_000);
});
