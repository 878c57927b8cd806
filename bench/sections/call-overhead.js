'use strict';
// Section 4, tool call overhead: the fixture's `echo` tool called directly with the SDK, through the
// registry's /mcp endpoint (call_tool) and through POST /api/v1/llm/mcp-call-tool, one call at a time,
// interleaved so that drift hits them alike; every session is opened once and reused. Beside them, call_tool
// through /mcp from the REST call's plain HTTP client (results.json only): the endpoint's own cost, apart from
// the SDK client's.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { log, sleep, ms, summarize, round } = require('../lib/util');

const CONNECTED = 'MCP_SERVER_CONNECTION_STATUS_CONNECTED';
const DISCOVERING = 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING';

async function connect(url, headers) {
  const client = new Client({ name: 'bench-caller', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined));
  return client;
}

function textOf(result) {
  return result?.content?.find?.((c) => c.type === 'text')?.text;
}

/** Registers the fixture server the calls go to and waits until discovery has connected it. */
async function registerTarget(ctx, platform) {
  const url = `${ctx.fixture.base}/s/${ctx.fixture.callIndex}/mcp`;
  const created = await platform.http.expect('POST', '/api/v1/servers', { name: 'call-target', kind: 'MCP_SERVER_KIND_BUILT_IN', transport: 'streamable-http', url }, [201]);
  let server = created;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && server.status === DISCOVERING) {
    await sleep(200);
    server = await platform.http.expect('GET', `/api/v1/servers/${created.id}`);
  }
  return { id: created.id, url, status: server.status, reason: server.statusReason };
}

async function run(ctx, seeded) {
  const platform = seeded.platform;
  const target = await registerTarget(ctx, platform);
  if (target.status !== CONNECTED) return { notAvailable: `the call target is ${target.status} (${target.reason ?? 'no reason'}); calls need discovery to connect it` };

  const iterations = ctx.quick ? 100 : 500;
  const warmup = 30;
  const text = 'x'.repeat(64);
  const direct = await connect(target.url);
  const paths = {};
  let viaMcp;
  try {
    viaMcp = await connect(`${platform.origin}/mcp`, { Authorization: `Bearer ${seeded.tenantKey}` });
    const r = await viaMcp.callTool({ name: 'call_tool', arguments: { serverId: target.id, toolName: 'echo', arguments: { text } } });
    if (r.isError || !JSON.stringify(r).includes(text)) throw new Error(`call_tool answered ${JSON.stringify(r).slice(0, 200)}`);
    paths.mcp = async () => {
      const res = await viaMcp.callTool({ name: 'call_tool', arguments: { serverId: target.id, toolName: 'echo', arguments: { text } } });
      if (res.isError) throw new Error(`call_tool failed: ${JSON.stringify(res).slice(0, 200)}`);
    };
  } catch (err) {
    paths.mcpMissing = `/mcp call_tool: ${err.message.split('\n')[0]}`;
    await viaMcp?.close().catch(() => undefined);
    viaMcp = undefined;
  }
  const rpcBody = { serverId: target.id, toolName: 'echo', arguments: { text } };
  const rpcProbe = await platform.http.request('POST', '/api/v1/llm/mcp-call-tool', rpcBody, seeded.tenantKey);
  if (rpcProbe.status === 200 && !rpcProbe.json?.isError) {
    paths.rpc = async () => {
      await platform.http.expect('POST', '/api/v1/llm/mcp-call-tool', rpcBody, [200], seeded.tenantKey);
    };
  } else {
    paths.rpcMissing = `POST /api/v1/llm/mcp-call-tool answered ${rpcProbe.status}: ${rpcProbe.text.slice(0, 160)}`;
  }
  // The same call_tool through /mcp as one JSON-RPC POST of a plain HTTP client (the REST path's client): tells the
  // endpoint's own cost from the SDK client's.
  const plainCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'call_tool', arguments: { serverId: target.id, toolName: 'echo', arguments: { text } } } };
  const mcpPlain = async () => {
    const res = await platform.http.pool.request({
      method: 'POST',
      path: '/mcp',
      headers: { authorization: `Bearer ${seeded.tenantKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(plainCall),
    });
    const body = await res.body.text();
    if (res.statusCode !== 200 || !body.includes(text)) throw new Error(`/mcp answered ${res.statusCode}: ${body.slice(0, 200)}`);
  };
  try {
    await mcpPlain();
    paths.mcpPlain = mcpPlain;
  } catch (err) {
    paths.mcpPlainMissing = err.message.split('\n')[0];
  }
  paths.direct = async () => {
    const res = await direct.callTool({ name: 'echo', arguments: { text } });
    if (textOf(res) !== text) throw new Error('the direct call did not echo');
  };

  const order = ['direct', 'mcp', 'rpc', 'mcpPlain'].filter((k) => paths[k]);
  log(`call overhead: ${iterations} calls each of ${order.join(', ')}`);
  const samples = Object.fromEntries(order.map((k) => [k, []]));
  try {
    for (let i = 0; i < warmup + iterations; i++) {
      for (const k of order) {
        const t = process.hrtime.bigint();
        await paths[k]();
        if (i >= warmup) samples[k].push(ms(t));
      }
    }
  } finally {
    await direct.close().catch(() => undefined);
    await viaMcp?.close().catch(() => undefined);
  }
  const stats = Object.fromEntries(order.map((k) => [k, summarize(samples[k])]));
  const added = (k) => (stats[k] ? { p50: round(stats[k].p50 - stats.direct.p50), p99: round(stats[k].p99 - stats.direct.p99) } : null);
  return {
    iterations,
    target: { serverId: target.id, tool: 'echo', registration: 'BUILT_IN with the admin key, discovered by the worker' },
    direct: stats.direct,
    mcp: stats.mcp ?? { notAvailable: paths.mcpMissing },
    rpc: stats.rpc ?? { notAvailable: paths.rpcMissing },
    mcpPlain: stats.mcpPlain ?? { notAvailable: paths.mcpPlainMissing },
    addedMcp: added('mcp'),
    addedRpc: added('rpc'),
    // Against the REST call (same client): what answering through the MCP endpoint costs beyond mcp-call-tool.
    mcpPlainOverRpcMs: stats.mcpPlain && stats.rpc ? { p50: round(stats.mcpPlain.p50 - stats.rpc.p50), p99: round(stats.mcpPlain.p99 - stats.rpc.p99) } : null,
  };
}

module.exports = { run };
