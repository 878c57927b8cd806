import { ConflictError, InvalidInputError, NotFoundError, Principal, ResultTooLargeError } from '@app/domain';
import { sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { everythingStdio, startEverything } from '../fixtures/reference-servers';
import { startTestApp } from '../support/app';
import { registerServer, settled } from '../support/servers';
import { useStand } from '../support/stand';
import { makeTenant } from '../support/tenants';
import { ServerContentService } from '../../apps/api/src/llm-tools/server-content.service';
import { ToolCallService } from '../../apps/api/src/llm-tools/tool-call.service';

const STATIC_DOC = 'demo://resource/static/document/architecture.md';

/**
 * Reading resources and getting prompts through ServerContentService: routed as tool calls are (the caller's
 * scope, the pooled session with the server's own credentials, the limits, the audit), against server-everything
 * over stdio (a platform server) and over Streamable HTTP (a tenant's), and a server that answers too much.
 */
describe('resource reads and prompt gets, routed as tool calls', () => {
  const requests: string[] = [];
  const s = useStand(async (keep) => {
    const [t, everythingHttp, bulky] = await Promise.all([
      startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '20000', TOOL_RESULT_MAX_BYTES: String(256 * 1024) } }),
      startEverything('streamableHttp'),
      startRawServer({
        name: 'bulky',
        capabilities: { tools: {}, resources: {}, prompts: {} },
        onToolsList: () => ({ result: { tools: [sampleTool('noop')] } }),
        onRequest: (req) => {
          requests.push(req.method);
          if (req.method === 'resources/list') return { result: { resources: [{ uri: 'bulky://big', name: 'big' }, { uri: 'bulky://small', name: 'small' }] } };
          if (req.method === 'resources/read') {
            const uri = req.params?.uri as string;
            const text = uri === 'bulky://big' ? 'x'.repeat(512 * 1024) : 'small';
            return { result: { contents: [{ uri, mimeType: 'text/plain', text }] } };
          }
          if (req.method === 'prompts/list') return { result: { prompts: [{ name: 'greet', arguments: [{ name: 'who', required: true }] }] } };
          if (req.method === 'prompts/get') {
            const who = (req.params?.arguments as Record<string, string> | undefined)?.who;
            return { result: { messages: [{ role: 'user', content: { type: 'text', text: `hello ${who}` } }] } };
          }
          return undefined;
        },
      }),
    ]);
    keep(bulky);
    keep(everythingHttp);
    keep(t);
    const a = await makeTenant(t);
    const b = await makeTenant(t);
    const platformId = (await registerServer(t, { name: 'everything-stdio', kind: 'BUILT_IN', transport: 'stdio', ...everythingStdio() })).id;
    const tenantServerId = (await registerServer(t, { name: 'everything-of-a', transport: 'streamable-http', url: everythingHttp.url }, a.key)).id;
    const bulkyId = (await registerServer(t, { name: 'bulky', transport: 'streamable-http', url: bulky.url, credentials: { bearerToken: 'bulky-upstream-token-0123456789' } }, a.key)).id;
    for (const id of [platformId, tenantServerId, bulkyId]) expect((await settled(t, id, 60_000)).status).toBe('CONNECTED');
    const asA: Principal = { type: 'tenant', tenantId: a.tenantId, keyId: a.keyId };
    const asB: Principal = { type: 'tenant', tenantId: b.tenantId, keyId: b.keyId };
    return { t, content: t.app.get(ServerContentService), a, b, asA, asB, platformId, tenantServerId, bulkyId };
  }, 120_000);

  it("reads a listed resource and one a resource template expands to, and gets a prompt, of a platform server (stdio)", async () => {
    const doc = await s.content.readResource(s.asA, { serverId: s.platformId, uri: STATIC_DOC });
    expect(doc.contents).toEqual([expect.objectContaining({ uri: STATIC_DOC, mimeType: 'text/markdown', text: expect.stringContaining('Architecture') })]);
    const dynamic = await s.content.readResource(s.asB, { serverId: s.platformId, uri: 'demo://resource/dynamic/text/7' });
    expect(dynamic.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/7', text: expect.stringContaining('7') });
    const prompt = await s.content.getPrompt(s.asA, { serverId: s.platformId, name: 'args-prompt', arguments: { city: 'Lisbon' } });
    expect(JSON.stringify(prompt.messages)).toContain('Lisbon');
  });

  it("lets a tenant read its own server's resources and prompts, and no other tenant: 404, as for the server", async () => {
    const mine = await s.content.readResource(s.asA, { serverId: s.tenantServerId, uri: STATIC_DOC });
    expect(mine.contents[0]).toMatchObject({ uri: STATIC_DOC });
    expect((await s.content.getPrompt(s.asA, { serverId: s.tenantServerId, name: 'simple-prompt' })).messages.length).toBeGreaterThan(0);
    await expect(s.content.readResource(s.asB, { serverId: s.tenantServerId, uri: STATIC_DOC })).rejects.toThrow(NotFoundError);
    await expect(s.content.readResource(s.asB, { serverId: s.tenantServerId, uri: STATIC_DOC })).rejects.toThrow(`server ${s.tenantServerId} not found`);
    await expect(s.content.getPrompt(s.asB, { serverId: s.tenantServerId, name: 'simple-prompt' })).rejects.toThrow(`server ${s.tenantServerId} not found`);
    await expect(s.content.readResource(s.asB, { serverId: s.bulkyId, uri: 'bulky://small' })).rejects.toThrow(NotFoundError);
    expect(requests.filter((m) => m === 'resources/read')).toEqual([]);
  });

  it('asks only for what discovery found: an unlisted URI or prompt is a 404 that says where to look, bad input a 400', async () => {
    await expect(s.content.readResource(s.asA, { serverId: s.platformId, uri: 'demo://resource/elsewhere' })).rejects.toThrow(
      /^resource "demo:\/\/resource\/elsewhere" not found on server "everything-stdio": neither listed nor matched by one of its resource templates/,
    );
    await expect(s.content.getPrompt(s.asA, { serverId: s.platformId, name: 'no-such-prompt' })).rejects.toThrow(NotFoundError);
    await expect(s.content.readResource(s.asA, { serverId: s.platformId, uri: '' })).rejects.toThrow(InvalidInputError);
    await expect(s.content.readResource(s.asA, { serverId: s.platformId, uri: 'x'.repeat(3000) })).rejects.toThrow(InvalidInputError);
    await expect(s.content.getPrompt(s.asA, { serverId: s.platformId, name: 'args-prompt', arguments: { city: 7 as unknown as string } })).rejects.toThrow(
      InvalidInputError,
    );
  });

  it("reaches a tenant's server with its credentials on the pooled session tool calls use, bounded by the result limit", async () => {
    const calls = s.t.app.get(ToolCallService);
    const opened = calls.pool.stats().opened;
    const small = await s.content.readResource(s.asA, { serverId: s.bulkyId, uri: 'bulky://small' });
    expect(small.contents).toEqual([{ uri: 'bulky://small', mimeType: 'text/plain', text: 'small' }]);
    await calls.call(s.asA, { serverId: s.bulkyId, toolName: 'noop', arguments: { value: 'v' } }).catch(() => undefined);
    expect((await s.content.getPrompt(s.asA, { serverId: s.bulkyId, name: 'greet', arguments: { who: 'you' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'hello you' } },
    ]);
    // One session for the read, the tool call and the prompt.
    expect(calls.pool.stats().opened - opened).toBe(1);
    // TOOL_RESULT_MAX_BYTES applies to a read as to a tool's result.
    await expect(s.content.readResource(s.asA, { serverId: s.bulkyId, uri: 'bulky://big' })).rejects.toThrow(ResultTooLargeError);
  });

  it('refuses a disabled server as a call is refused (409), and audits every read and get without arguments or contents', async () => {
    const off = await s.t.request('PATCH', `/api/v1/servers/${s.bulkyId}`, { key: s.a.key, body: { enabled: false } });
    expect(off.status).toBe(200);
    await expect(s.content.readResource(s.asA, { serverId: s.bulkyId, uri: 'bulky://small' })).rejects.toThrow(ConflictError);

    await s.t.app.get(ToolCallService).flushAudit();
    const reads = (await s.t.request('GET', `/api/v1/audit?action=resource.read&resourceId=${s.bulkyId}`)).body.events as Record<string, any>[];
    expect(reads.map((e) => e.outcome).sort()).toEqual(['limit_exceeded', 'not_connected', 'not_found', 'ok']);
    expect(reads.find((e) => e.outcome === 'ok')).toMatchObject({
      actorType: 'tenant',
      actorId: s.a.keyId,
      tenantId: s.a.tenantId,
      resourceType: 'server',
      detail: { uri: 'bulky://small', via: 'rpc', server: 'bulky' },
    });
    // Tenant B's refused read is recorded as B's.
    expect(reads.find((e) => e.outcome === 'not_found')).toMatchObject({ actorId: s.b.keyId, tenantId: s.b.tenantId });
    const gets = (await s.t.request('GET', `/api/v1/audit?action=prompt.get&resourceId=${s.bulkyId}`)).body.events as Record<string, any>[];
    expect(gets).toEqual([expect.objectContaining({ outcome: 'ok', detail: { prompt: 'greet', via: 'rpc', server: 'bulky' } })]);
    const all = JSON.stringify([reads, gets]);
    expect(all).not.toContain('hello you');
    expect(all).not.toContain('bulky-upstream-token');
    expect(s.t.logs()).not.toContain('bulky-upstream-token');
  });
});
