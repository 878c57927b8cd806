'use strict';
// Section 4, tool call overhead: the fixture's `echo` tool called through the registry's /mcp endpoint
// (call_tool) and through POST /api/v1/llm/mcp-call-tool, one call at a time, interleaved so that drift hits
// them alike; every session is opened once and reused. Each is measured against the same call made directly
// from the same kind of client, so that what is added is the registry's and not a client's: /mcp from the SDK
// client against the SDK client's direct call, mcp-call-tool from a plain HTTP client against that client's
// JSON-RPC POST on a session of its own with the fixture. Beside them (results.json only), call_tool through
// /mcp from the plain HTTP client, against the same plain direct call.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { Pool } = require('undici');
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
  // The direct call from the plain HTTP client: a session of its own with the fixture, one POST per call.
  const targetUrl = new URL(target.url);
  const fixture = new Pool(targetUrl.origin, { connections: 4 });
  try {
    paths.directPlain = await plainSession(fixture, targetUrl.pathname, direct.transport.protocolVersion, text);
  } catch (err) {
    paths.directPlainMissing = `the plain direct call: ${err.message.split('\n')[0]}`;
  }

  const order = ['direct', 'directPlain', 'mcp', 'rpc', 'mcpPlain'].filter((k) => paths[k]);
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
    await fixture.close().catch(() => undefined);
  }
  const stats = Object.fromEntries(order.map((k) => [k, summarize(samples[k])]));
  const added = (k, floor) => (stats[k] && stats[floor] ? { p50: round(stats[k].p50 - stats[floor].p50), p99: round(stats[k].p99 - stats[floor].p99) } : null);
  return {
    iterations,
    target: { serverId: target.id, tool: 'echo', registration: 'BUILT_IN with the admin key, discovered by the worker' },
    direct: stats.direct,
    directPlain: stats.directPlain ?? { notAvailable: paths.directPlainMissing },
    mcp: stats.mcp ?? { notAvailable: paths.mcpMissing },
    rpc: stats.rpc ?? { notAvailable: paths.rpcMissing },
    mcpPlain: stats.mcpPlain ?? { notAvailable: paths.mcpPlainMissing },
    // each against the direct call from the same kind of client
    addedMcp: added('mcp', 'direct'),
    addedRpc: added('rpc', 'directPlain'),
    addedMcpPlain: added('mcpPlain', 'directPlain'),
    // what the SDK client itself costs a call over the plain one (the direct calls, the same server)
    sdkClientOverPlainMs: added('direct', 'directPlain'),
    // Against the REST call (same client): what answering through the MCP endpoint costs beyond mcp-call-tool.
    mcpPlainOverRpcMs: stats.mcpPlain && stats.rpc ? { p50: round(stats.mcpPlain.p50 - stats.rpc.p50), p99: round(stats.mcpPlain.p99 - stats.rpc.p99) } : null,
  };
}

/**
 * Opens a session with a Streamable HTTP server as a plain HTTP client (initialize, then initialized) and
 * returns one `echo` call on it: a JSON-RPC POST whose answer (JSON or an event stream) is read whole.
 */
async function plainSession(pool, path, protocolVersion, text) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = async (message, extra) => {
    const res = await pool.request({ method: 'POST', path, headers: { ...headers, ...extra }, body: JSON.stringify(message) });
    const body = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${message.method} answered ${res.statusCode}: ${body.slice(0, 160)}`);
    return { res, body };
  };
  const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'bench-plain', version: '1.0.0' } } });
  const session = { 'mcp-protocol-version': protocolVersion };
  const sid = init.res.headers['mcp-session-id'];
  if (typeof sid === 'string') session['mcp-session-id'] = sid;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text } } };
  const once = async () => {
    const { body } = await post(call, session);
    if (!body.includes(text)) throw new Error(`the plain direct call answered ${body.slice(0, 200)}`);
  };
  await once();
  return once;
}

module.exports = { run };
