import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { createTestDatabase, TestDatabase } from '../support/database';
import { sdk1Client } from '../support/mcp-clients';
import { settled, waitFor } from '../support/servers';

/** Every server lists the same four tools: names that collide, one a client would refuse, one too long. */
const TOOL_NAMES = ['search', 'create', 'get.item/v2', `summarize_${'long_'.repeat(14)}text`];

/**
 * 30 servers in three groups: short distinct names, long names alike in their first 20 characters, and names
 * that differ only in case and punctuation (one prefix for all, told apart by their ids).
 */
const SERVER_NAMES = [
  ...Array.from({ length: 10 }, (_, i) => `team-${String(i).padStart(2, '0')}`),
  ...Array.from({ length: 10 }, (_, i) => `customer-support-knowledge-base-${i}`),
  ...['docs', 'Docs', 'DOCS', 'docs!', 'docs.', '_docs', 'docs_', 'Docs!', 'DOCS.', 'dOcS'],
];

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

type Listed = { name: string; serverId: string; toolName: string }[];

describe('the tool names of a virtual server of 30 servers whose tools share names', () => {
  let database: TestDatabase;
  let fixture: RawServer;
  let t: TestApp;
  let virtualId: string;
  let serverIds: string[];

  const start = () => startTestApp({ database, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
  const listed = async (): Promise<Listed> => (await t.request('GET', `/api/v1/virtual-servers/${virtualId}/tools`)).body.tools;
  const allListed = () => waitFor('every tool listed', async () => ((await listed()).length === SERVER_NAMES.length * TOOL_NAMES.length ? listed() : undefined), 30_000);

  beforeAll(async () => {
    database = await createTestDatabase();
    fixture = await startRawServer({ name: 'shared-names', onToolsList: () => ({ result: { tools: TOOL_NAMES.map((n) => sampleTool(n)) } }) });
    t = await start();
    const batch = await t.request('POST', '/api/v1/servers/batch', {
      body: { servers: SERVER_NAMES.map((name) => ({ name, kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url })) },
    });
    expect(batch.status).toBe(201);
    serverIds = batch.body.servers.map((s: { id: string }) => s.id);
    for (const id of serverIds) expect((await settled(t, id, 60_000)).status).toBe('CONNECTED');
    const made = await t.request('POST', '/api/v1/virtual-servers', { body: { name: 'all-thirty', servers: serverIds } });
    expect(made.status).toBe(201);
    virtualId = made.body.id;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await fixture?.close();
    await database?.drop();
  });

  let first: Listed;

  it('gives 120 unique valid names of at most 64 characters, each routed to its own server and tool', async () => {
    first = await allListed();
    const names = first.map((x) => x.name);
    expect(new Set(names).size).toBe(120);
    for (const n of names) expect(n).toMatch(VALID);
    const longest = Math.max(...names.map((n) => n.length));
    expect(longest).toBeLessThanOrEqual(64);
    expect(new Set(first.map((x) => `${x.serverId}/${x.toolName}`)).size).toBe(120);
    // In member order, then in each server's order.
    expect(first.map((x) => x.serverId)).toEqual(serverIds.flatMap((id) => TOOL_NAMES.map(() => id)));
    expect(first.slice(0, 4).map((x) => x.name)).toEqual(['team_00__search', 'team_00__create', expect.stringMatching(/^team_00__get_item_v2_[0-9a-f]{6}$/), expect.stringMatching(/^team_00__summarize_long_/)]);
    process.stdout.write(`\nnames: 120 unique, longest ${longest} characters; e.g. ${names[40]}, ${names[80]}, ${names[82]}\n`);
  });

  it('lists the same names to an MCP client', async () => {
    const client = await sdk1Client(`${t.baseUrl}/mcp/v/${virtualId}`, t.adminKey);
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual(first.map((x) => x.name));
      const called = await client.callTool({ name: first[82].name, arguments: { value: 'v' } });
      expect(called).toBeDefined();
    } finally {
      await client.close();
    }
  });

  it('keeps every name through rediscoveries', async () => {
    const before = await t.runtime.prisma.discoveryRun.count();
    for (const id of serverIds.slice(20)) expect((await t.request('POST', `/api/v1/servers/${id}/discover`)).status).toBe(202);
    await waitFor('ten more discoveries', async () => (await t.runtime.prisma.discoveryRun.count({ where: { outcome: 'SUCCEEDED' } })) >= before + 10, 60_000);
    for (const id of serverIds.slice(20)) await settled(t, id, 60_000);
    expect(await allListed()).toEqual(first);
  }, 90_000);

  it('keeps every name across a restart', async () => {
    await t.close();
    t = await start();
    expect(await allListed()).toEqual(first);
  }, 60_000);
});
