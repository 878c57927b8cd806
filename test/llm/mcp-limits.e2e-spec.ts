import { expectProblem, makeTenant, TenantKey } from '../support/tenants';
import { useTestApp } from '../support/app';
import { MAX_BODY_DEPTH } from '../../apps/api/src/http/input-rules';

/** `{"a":{"a":…leaf…}}`, `depth` objects deep, written as text (a value that deep cannot be stringified recursively). */
function nested(depth: number, leaf = '1'): string {
  return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

describe('/mcp is held to the same input rules as the REST and RPC APIs', () => {
  const t = useTestApp({ worker: false });
  let a: TenantKey;
  const someId = '0190a3c0-0000-7000-8000-000000000000';

  beforeAll(async () => {
    a = await makeTenant(t);
  });

  const mcp = (body: string) =>
    fetch(`${t.baseUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
      // A batch that is never answered fails here instead of holding the test.
      signal: AbortSignal.timeout(10_000),
    });
  const callToolWith = (args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"call_tool","arguments":{"serverId":"${someId}","toolName":"t","arguments":${args}}}}`;

  async function problem(res: Response, status: number): Promise<{ detail: string; errors?: { field: string; message: string }[] }> {
    const body = (await res.json()) as { detail: string; errors?: { field: string; message: string }[] };
    expectProblem({ status: res.status, headers: res.headers, body }, status);
    return body;
  }

  it('refuses tool arguments nested too deep with a 400, before any server is reached, as the RPC API does', async () => {
    for (const depth of [2_000, 50_000]) {
      const viaMcp = await problem(await mcp(callToolWith(nested(depth))), 400);
      expect(viaMcp.detail).toContain(`nested more than ${MAX_BODY_DEPTH} levels deep`);
      const viaRpc = await t.request('POST', '/api/v1/llm/mcp-call-tool', {
        key: a.key,
        rawBody: `{"serverId":"${someId}","toolName":"t","arguments":${nested(depth)}}`,
      });
      expectProblem(viaRpc, 400);
      expect(viaRpc.body.detail).toContain(`nested more than ${MAX_BODY_DEPTH} levels deep`);
    }
    // Within the bound, a call is made (and answered as the tool's error: no such server).
    const shallow = await mcp(callToolWith(nested(10)));
    expect(shallow.status).toBe(200);
  });

  it('refuses NUL and lone surrogates anywhere in a JSON-RPC message, naming where', async () => {
    const nul = await problem(await mcp(callToolWith('{"text":"a\\u0000b"}')), 400);
    expect(nul.errors?.[0].field).toBe('params.arguments.arguments.text');
    const lone = await problem(await mcp(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"\\ud800"}}}`), 400);
    expect(lone.errors?.[0].field).toBe('params.arguments.query');
    const inBatch = await problem(await mcp(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":"\\u0000","method":"tools/list"}]`), 400);
    expect(inBatch.errors?.[0].field).toBe('1.id');
    // A tool may take a parameter named "prototype"; __proto__ is refused there as everywhere.
    expect((await mcp(callToolWith('{"prototype":"p","constructor":"c"}'))).status).toBe(200);
    await problem(await mcp(callToolWith('{"__proto__":{"x":1}}')), 400);
  });

  it('holds /mcp bodies to the same size limit', async () => {
    const res = await mcp(callToolWith(JSON.stringify({ blob: 'x'.repeat(1_100_000) })));
    expect([400, 413]).toContain(res.status);
    await problem(res, res.status);
  });

  it('answers every request of a batch whose requests share an id: the repeated one with an Invalid Request error', async () => {
    const res = await mcp(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'x', method: 'tools/list' },
        { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'list_servers', arguments: {} } },
        { jsonrpc: '2.0', id: 7, method: 'ping' },
        { jsonrpc: '2.0', id: '7', method: 'ping' },
      ]),
    );
    expect(res.status).toBe(200);
    const answers = (await res.json()) as { id: unknown; result?: { tools?: unknown[] }; error?: { code: number; message: string } }[];
    expect(answers.map((m) => m.id)).toEqual(['x', 'x', 7, '7']);
    expect(answers[0].result?.tools).toHaveLength(4);
    expect(answers[1].error?.code).toBe(-32600);
    expect(answers[1].error?.message).toContain('"x"');
    // 7 and "7" are different ids.
    expect(answers[2].result).toEqual({});
    expect(answers[3].result).toEqual({});

    // Also when a call of the batch asks for progress (which is otherwise answered as an event stream).
    const progress = await mcp(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_servers', arguments: {}, _meta: { progressToken: 'p' } } },
      ]),
    );
    expect(progress.status).toBe(200);
    const both = (await progress.json()) as { id: unknown; result?: unknown; error?: { code: number } }[];
    expect(both.map((m) => [m.id, m.error?.code])).toEqual([
      [1, undefined],
      [1, -32600],
    ]);
  });
});
