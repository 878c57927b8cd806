import { ChangeFeed } from '@app/database';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { everythingStdio, plainSdkTools } from '../fixtures/reference-servers';
import { LIST_REPORTS, REPORT_A, REPORT_B, startSwitchableServer, SwitchableServer } from '../fixtures/switchable-server';
import { eventually, mcpClient, structured } from '../llm/helpers';
import { useTestApp } from '../support/app';
import { runsOf, settled, waitFor } from '../support/servers';
import { expectProblem, makeTenant, TenantKey } from '../support/tenants';

const OVERRIDE = 'dev.mcp-registry/override';

/**
 * Tool integrity over real transports: a server whose tool changes between two discoveries (a rug pull) under each
 * tool policy; decisions with stale hashes; overrides seen in search, availableTools and /mcp while calls reach the
 * upstream tool by its own name; and decisions kept within a tenant.
 */
describe('tool integrity: policies, decisions, overrides', () => {
  const t = useTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: '20000' } });
  let a: TenantKey;
  let b: TenantKey;
  const fixtures: SwitchableServer[] = [];

  beforeAll(async () => {
    a = await makeTenant(t);
    b = await makeTenant(t);
  });
  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.close()));
  });

  async function fixture(): Promise<SwitchableServer> {
    const f = await startSwitchableServer();
    fixtures.push(f);
    return f;
  }

  async function register(name: string, url: string, toolPolicy?: string, key = a.key): Promise<string> {
    const res = await t.request('POST', '/api/v1/servers', { key, body: { name, transport: 'streamable-http', url, ...(toolPolicy ? { toolPolicy } : {}) } });
    expect(res.status).toBe(201);
    expect(res.body.toolPolicy).toBe(toolPolicy ?? 'open');
    await settled(t, res.body.id);
    return res.body.id;
  }

  /** Discovers again and waits until the new run succeeded and the catalog of this process has read it. */
  async function rediscover(id: string, key = a.key): Promise<void> {
    const before = (await runsOf(t, id)).filter((r) => r.outcome === 'SUCCEEDED').length;
    expect((await t.request('POST', `/api/v1/servers/${id}/discover`, { key })).status).toBe(202);
    await waitFor('the next discovery', async () => (await runsOf(t, id)).filter((r) => r.outcome === 'SUCCEEDED').length > before);
    await settled(t, id);
    await catalogPoll();
  }

  async function catalogPoll(): Promise<void> {
    // Every change committed so far delivered, the catalog's reloads included.
    await t.app.get(ChangeFeed).read();
  }

  const search = async (query: string, serverId: string, key = a.key) => {
    const res = await t.request('POST', '/api/v1/llm/mcp-search-tools', { key, body: { query, serverIds: [serverId], limit: 10 } });
    expect(res.status).toBe(200);
    return res.body.results as { tool: Record<string, unknown> & { name: string } }[];
  };
  const info = async (serverId: string, key = a.key) => {
    const res = await t.request('POST', '/api/v1/llm/mcp-get-server-info', { key, body: { serverId } });
    expect(res.status).toBe(200);
    return res.body.availableTools as (Record<string, unknown> & { name: string })[];
  };
  const call = (serverId: string, toolName: string, key = a.key) =>
    t.request('POST', '/api/v1/llm/mcp-call-tool', { key, body: { serverId, toolName, arguments: { region: 'emea', notes: 'n' } } });
  const changes = (serverId: string, key = a.key) => t.request('GET', `/api/v1/servers/${serverId}/tool-changes`, { key });
  const decide = (serverId: string, tool: string, decision: 'approve' | 'reject', hash: string, key = a.key) =>
    t.request('POST', `/api/v1/servers/${serverId}/tool-changes/${encodeURIComponent(tool)}/${decision}`, { key, body: { hash } });

  it('pinned: a changed tool stops being searchable and callable, its diff is listed, a stale approve is a 409 and approve makes the new definition live', async () => {
    const f = await fixture();
    const id = await register('reports-pinned', f.url, 'pinned');
    await catalogPoll();
    // The first discovery's tools are approved, and served whole.
    expect((await info(id)).find((x) => x.name === 'fetch_report')).toEqual(REPORT_A);
    expect((await search('quarterly sales report', id)).map((r) => r.tool.name)).toContain('fetch_report');
    expect((await call(id, 'fetch_report')).status).toBe(200);
    const first = await changes(id);
    expect(first.body).toEqual({ serverId: id, toolPolicy: 'pinned', pendingToolChanges: 0, changes: [] });

    f.switchTo(true);
    await rediscover(id);

    // Neither the new definition nor the old one is served now.
    expect((await info(id)).map((x) => x.name)).toEqual(['list_reports']);
    expect((await search('quarterly sales report', id)).map((r) => r.tool.name)).not.toContain('fetch_report');
    const refused = await call(id, 'fetch_report');
    expectProblem(refused, 404);
    expect(refused.body.detail).toContain('waits for a decision');
    const server = await t.request('GET', `/api/v1/servers/${id}`, { key: a.key });
    expect(server.body).toMatchObject({ toolPolicy: 'pinned', pendingToolChanges: 1 });
    const view = await t.request('GET', `/api/v1/servers/${id}/tools`, { key: a.key });
    expect(view.body.tools.map((x: { name: string }) => x.name)).toEqual(['list_reports']);
    expect(view.body.withheld).toEqual([{ reason: 'pending', hash: expect.stringMatching(/^[0-9a-f]{64}$/), tool: REPORT_B }]);

    // The diff, field by field.
    const held = await changes(id);
    expect(held.status).toBe(200);
    expect(held.body.pendingToolChanges).toBe(1);
    const [change] = held.body.changes;
    expect(change).toMatchObject({ toolName: 'fetch_report', status: 'pending', kind: 'changed', tool: REPORT_B, approved: REPORT_A });
    expect(change.fields).toEqual([
      { field: 'description', before: REPORT_A.description, after: REPORT_B.description },
      { field: 'inputSchema', before: REPORT_A.inputSchema, after: REPORT_B.inputSchema },
    ]);
    expect(change.approvedHash).not.toBe(change.hash);

    // The history says which fields changed, and that the change was held.
    const [run] = (await t.request('GET', `/api/v1/servers/${id}/discoveries`, { key: a.key })).body.runs;
    expect(run).toMatchObject({ changed: ['fetch_report'], held: ['fetch_report'], changes: [{ name: 'fetch_report', fields: ['description', 'inputSchema'], hash: change.hash, previousHash: change.approvedHash }] });
    expect(run.toolsHash).toMatch(/^[0-9a-f]{64}$/);

    // The event, written with the change.
    const events = await t.runtime.prisma.serverEvent.findMany({ where: { serverId: id, type: 'server.tool_change_pending' } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tenantId: a.tenantId, data: { serverId: id, count: 1, tools: [{ toolName: 'fetch_report', kind: 'changed', hash: change.hash, fields: ['description', 'inputSchema'] }] } });

    // A hash other than the definition's now (here the one approved before it changed) is stale: nothing is decided.
    const stale = await decide(id, 'fetch_report', 'approve', change.approvedHash);
    expectProblem(stale, 409);
    expect(stale.body.detail).toContain(change.hash);
    expect((await info(id)).map((x) => x.name)).toEqual(['list_reports']);

    const approved = await decide(id, 'fetch_report', 'approve', change.hash);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ serverId: id, toolName: 'fetch_report', hash: change.hash, approval: 'approved', pendingToolChanges: 0 });
    await catalogPoll();
    expect((await info(id)).find((x) => x.name === 'fetch_report')).toEqual(REPORT_B);
    const found = await search('quarterly sales report credentials', id);
    expect(found.find((r) => r.tool.name === 'fetch_report')?.tool).toEqual(REPORT_B);
    expect((await call(id, 'fetch_report')).status).toBe(200);
    expect((await changes(id)).body.changes).toEqual([]);

    // Audited, by whom, in the decision's transaction.
    const audit = await t.request('GET', `/api/v1/audit?action=server.approve-tool-change&resourceId=${id}`);
    expect(audit.body.events).toEqual([expect.objectContaining({ actorType: 'tenant', tenantId: a.tenantId, detail: { name: 'reports-pinned', toolName: 'fetch_report', hash: change.hash } })]);
  });

  it('open: nothing is held, and the history still shows the change field by field', async () => {
    const f = await fixture();
    const id = await register('reports-open', f.url);
    f.switchTo(true);
    await rediscover(id);
    expect((await info(id)).find((x) => x.name === 'fetch_report')).toEqual(REPORT_B);
    expect((await call(id, 'fetch_report')).status).toBe(200);
    expect((await changes(id)).body).toMatchObject({ toolPolicy: 'open', pendingToolChanges: 0, changes: [] });
    const [second, first] = (await t.request('GET', `/api/v1/servers/${id}/discoveries`, { key: a.key })).body.runs;
    expect(second).toMatchObject({ changed: ['fetch_report'], held: [], changes: [{ name: 'fetch_report', fields: ['description', 'inputSchema'] }] });
    expect(first).toMatchObject({ added: ['fetch_report', 'list_reports'], held: [] });
    expect(second.toolsHash).not.toBe(first.toolsHash);
    expect(await t.runtime.prisma.serverEvent.count({ where: { serverId: id, type: 'server.tool_change_pending' } })).toBe(0);
  });

  it('approval: nothing is served until approved, first sight included; reject keeps a tool out until it changes again', async () => {
    const f = await fixture();
    const id = await register('reports-approval', f.url, 'approval');
    await catalogPoll();
    expect(await info(id)).toEqual([]);
    expect(await search('quarterly sales report', id)).toEqual([]);
    expect((await call(id, 'list_reports')).status).toBe(404);
    const held = await changes(id);
    expect(held.body.pendingToolChanges).toBe(2);
    expect(held.body.changes.map((c: { toolName: string; kind: string }) => [c.toolName, c.kind])).toEqual([
      ['fetch_report', 'added'],
      ['list_reports', 'added'],
    ]);
    const [report, list] = held.body.changes;
    expect(report.fields.map((x: { field: string }) => x.field)).toEqual(['name', 'title', 'description', 'inputSchema', 'annotations', 'icons', 'execution', '_meta']);

    expect((await decide(id, 'list_reports', 'approve', list.hash)).status).toBe(200);
    expect((await decide(id, 'fetch_report', 'reject', report.hash)).body).toMatchObject({ approval: 'rejected', pendingToolChanges: 0 });
    await catalogPoll();
    expect((await info(id)).map((x) => x.name)).toEqual(['list_reports']);
    expect((await call(id, 'list_reports')).status).toBe(200);
    expect((await call(id, 'fetch_report')).status).toBe(404);
    // Rediscovered unchanged, a rejected definition stays rejected; changed again, it waits again.
    await rediscover(id);
    expect((await changes(id)).body).toMatchObject({ pendingToolChanges: 0, changes: [{ toolName: 'fetch_report', status: 'rejected' }] });
    f.switchTo(true);
    await rediscover(id);
    expect((await changes(id)).body).toMatchObject({ pendingToolChanges: 1, changes: [{ toolName: 'fetch_report', status: 'pending', hash: expect.not.stringMatching(report.hash) }] });

    // Changed to open, every definition waiting is approved.
    expect((await t.request('PATCH', `/api/v1/servers/${id}`, { key: a.key, body: { toolPolicy: 'open' } })).body).toMatchObject({ toolPolicy: 'open', pendingToolChanges: 0 });
    await catalogPoll();
    expect((await info(id)).map((x) => x.name)).toEqual(['fetch_report', 'list_reports']);
  });

  it('overrides show in search, availableTools and /mcp, marked; calls reach the upstream tool by its own name; kept across discoveries', async () => {
    const f = await fixture();
    const id = await register('reports-overridden', f.url, 'pinned');
    const put = await t.request('PUT', `/api/v1/servers/${id}/tools/fetch_report/override`, {
      key: a.key,
      body: { title: 'Regional sales', description: 'Reads the regional revenue workbook', annotations: { readOnlyHint: true, openWorldHint: false } },
    });
    expect(put.status).toBe(200);
    const overridden = {
      ...REPORT_A,
      title: 'Regional sales',
      description: 'Reads the regional revenue workbook',
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { ...REPORT_A._meta, [OVERRIDE]: { fields: ['title', 'description', 'annotations'] } },
    };
    expect(put.body).toMatchObject({ serverId: id, toolName: 'fetch_report', disabled: false, tool: overridden });
    await catalogPoll();

    expect((await info(id)).find((x) => x.name === 'fetch_report')).toEqual(overridden);
    // Found by the overriding words, no longer by the server's own.
    expect((await search('revenue workbook', id))[0]?.tool).toEqual(overridden);
    expect((await t.request('GET', `/api/v1/servers/${id}/tools`, { key: a.key })).body.tools[0]).toEqual(overridden);

    const client: Client = await mcpClient(t, a.key);
    try {
      const found = structured(await client.callTool({ name: 'search_tools', arguments: { query: 'revenue workbook', serverIds: [id] } }));
      expect(found.results[0].tool).toEqual(overridden);
      const serverInfo = structured(await client.callTool({ name: 'get_server_info', arguments: { serverId: id } }));
      expect(serverInfo.availableTools[0]).toEqual(overridden);
      const answer = await client.callTool({ name: 'call_tool', arguments: { serverId: id, toolName: 'fetch_report', arguments: { region: 'emea' } } });
      expect(JSON.stringify(answer)).toContain('called fetch_report');
    } finally {
      await client.close();
    }
    expect(f.calls).toEqual(['fetch_report']);

    // Kept across a discovery; an upstream change under the override is still a change to decide.
    f.switchTo(true);
    await rediscover(id);
    expect((await info(id)).map((x) => x.name)).toEqual(['list_reports']);
    const [change] = (await changes(id)).body.changes;
    expect(change).toMatchObject({ toolName: 'fetch_report', tool: REPORT_B });
    expect((await decide(id, 'fetch_report', 'approve', change.hash)).status).toBe(200);
    await catalogPoll();
    expect((await info(id)).find((x) => x.name === 'fetch_report')).toEqual({ ...overridden, inputSchema: REPORT_B.inputSchema });

    // Disabled: not searchable, not callable, not listed; the override's removal brings it back as the server has it.
    await t.request('PUT', `/api/v1/servers/${id}/tools/list_reports/override`, { key: a.key, body: { disabled: true } });
    await catalogPoll();
    expect((await info(id)).map((x) => x.name)).toEqual(['fetch_report']);
    expect((await search('archived spreadsheets finance', id)).map((r) => r.tool.name)).not.toContain('list_reports');
    const disabled = await call(id, 'list_reports');
    expectProblem(disabled, 404);
    expect(disabled.body.detail).toContain('disabled it');
    expect((await t.request('GET', `/api/v1/servers/${id}/tools`, { key: a.key })).body.withheld).toEqual([
      { reason: 'disabled', hash: expect.any(String), tool: LIST_REPORTS },
    ]);
    expect((await t.request('DELETE', `/api/v1/servers/${id}/tools/list_reports/override`, { key: a.key })).status).toBe(204);
    expect((await t.request('DELETE', `/api/v1/servers/${id}/tools/fetch_report/override`, { key: a.key })).status).toBe(204);
    await catalogPoll();
    expect(await info(id)).toEqual([REPORT_B, LIST_REPORTS]);
  });

  it("keeps decisions and overrides within their tenant: another tenant gets 404, a tenant on the platform's server 403", async () => {
    const f = await fixture();
    const id = await register('reports-isolated', f.url, 'approval');
    const [pending] = (await changes(id)).body.changes;
    expectProblem(await changes(id, b.key), 404);
    expectProblem(await decide(id, pending.toolName, 'approve', pending.hash, b.key), 404);
    expectProblem(await t.request('PUT', `/api/v1/servers/${id}/tools/fetch_report/override`, { key: b.key, body: { disabled: true } }), 404);
    expect((await changes(id)).body.pendingToolChanges).toBe(2);

    const platform = await t.request('POST', '/api/v1/servers', { body: { name: 'reports-platform', kind: 'BUILT_IN', transport: 'streamable-http', url: f.url, toolPolicy: 'approval' } });
    expect(platform.status).toBe(201);
    await settled(t, platform.body.id);
    const [platformChange] = (await changes(platform.body.id, t.adminKey)).body.changes;
    expectProblem(await changes(platform.body.id, a.key), 403);
    expectProblem(await decide(platform.body.id, platformChange.toolName, 'approve', platformChange.hash, a.key), 403);
    expect((await decide(platform.body.id, platformChange.toolName, 'approve', platformChange.hash, t.adminKey)).status).toBe(200);

    // Bad input changes nothing.
    expectProblem(await decide(id, pending.toolName, 'approve', 'not-a-hash'), 400);
    expectProblem(await decide(id, pending.toolName, 'reject', pending.hash.replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a'))), 409);
    expectProblem(await decide(id, 'no_such_tool', 'approve', pending.hash), 404);
    expectProblem(await t.request('PUT', `/api/v1/servers/${id}/tools/fetch_report/override`, { key: a.key, body: { title: 3 } }), 400);
    expectProblem(await t.request('POST', '/api/v1/servers', { key: a.key, body: { name: 'x', transport: 'streamable-http', url: f.url, toolPolicy: 'trusting' } }), 400);
    expect((await changes(id)).body.pendingToolChanges).toBe(2);
  });

  it("serves server-everything's tools (execution.taskSupport, icons, _meta) in availableTools and search exactly as a plain SDK client reads them", async () => {
    const expected = await plainSdkTools(everythingStdio());
    const res = await t.request('POST', '/api/v1/servers', { body: { name: 'everything-stdio', kind: 'BUILT_IN', transport: 'stdio', ...everythingStdio() } });
    expect(res.status).toBe(201);
    expect((await settled(t, res.body.id, 60_000)).status).toBe('CONNECTED');
    await catalogPoll();
    const served = await info(res.body.id);
    expect(served).toEqual(expected);
    const research = expected.find((x) => x.name === 'simulate-research-query');
    expect(research?.execution).toEqual({ taskSupport: 'required' });
    const hit = await eventually('the research tool in search', async () => (await search('deep research query', res.body.id)).find((r) => r.tool.name === 'simulate-research-query'));
    expect(hit.tool).toEqual(research);
  });
});
