import { Fixture, uncleanableCapabilities, unstorableText } from '../fixtures/hostile-servers';
import { useTestApp } from '../support/app';
import { registerServer, runsOf, settled } from '../support/servers';

/** Text a server sends that PostgreSQL cannot store (U+0000, lone surrogates) is cleaned, or refused naming the field. */
describe('discovered text PostgreSQL cannot store', () => {
  const t = useTestApp({ env: { DISCOVERY_ATTEMPTS: '2', DISCOVERY_TIMEOUT_MS: '8000' } });
  const fixtures: Fixture[] = [];

  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.close()));
  });

  it('strips U+0000 and lone surrogates from names, instructions, descriptions and schemas, and connects', async () => {
    const fixture = await unstorableText();
    fixtures.push(fixture);
    const { id } = await registerServer(t, { name: 'unstorable', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url });
    const row = await settled(t, id);
    expect({ status: row.status, reason: row.statusReason }).toEqual({ status: 'CONNECTED', reason: null });
    expect(await runsOf(t, id)).toHaveLength(1);
    expect(row).toMatchObject({
      serverName: 'unstorable server',
      serverTitle: 'Title here',
      serverVersion: '1.0',
      instructions: 'Use me carefully (lone low) and \ud83d\ude00 (a real pair, kept).',
      capabilities: { tools: {}, experimental: { nulkey: { note: 'lone  surrogate' } } },
    });
    const tools = (await t.request('GET', `/api/v1/servers/${id}/tools`)).body.tools as Record<string, unknown>[];
    expect(tools.map((x) => x.name)).toEqual(['nultool', 'surrogate', 'plain']);
    expect(tools[0]).toMatchObject({
      description: 'a description with a lone  high surrogate',
      inputSchema: { type: 'object', properties: { key: { type: 'string', description: 'lone low' } }, required: ['key'] },
    });
    expect(tools[1].title).toBe('Surrogate title');
    const [run] = (await t.request('GET', `/api/v1/servers/${id}/discoveries`)).body.runs as { dropped: { name?: string; reason: string }[] }[];
    expect(run.dropped).toEqual([
      { index: 2, name: 'colliding', reason: 'tools[2].inputSchema.properties has two keys that are the same once cleaned ("a")' },
    ]);
    // The registry's views carry no replacement characters where the server sent lone surrogates.
    const info = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { body: { serverId: id } });
    expect(info.text).not.toMatch(/\\ufffd|\ufffd|\\u0000/i);
  });

  it('ends in ERROR naming the field when a value cannot be cleaned, without retrying', async () => {
    const fixture = await uncleanableCapabilities();
    fixtures.push(fixture);
    const { id } = await registerServer(t, { name: 'uncleanable', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url });
    const row = await settled(t, id);
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toBe(`the server's capabilities.experimental cannot be stored: it has two keys that are the same once cleaned ("same")`);
    expect(await runsOf(t, id)).toHaveLength(1);
  });
});
