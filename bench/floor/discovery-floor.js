#!/usr/bin/env node
// The discovery floor: what a bare SDK client needs to learn every fixture server's tools. For each server:
// connect (initialize), list every page of tools, close; `concurrency` servers at a time, in this process of
// its own. Argument: JSON {base, count, concurrency}. Prints JSON {ms, cpuMs, ok, failed, tools, errors}
// (cpuMs: this process's CPU time over the timed loop).
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const { base, count, concurrency } = JSON.parse(process.argv[2]);

async function discoverOne(url) {
  const client = new Client({ name: 'bench-floor', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    let tools = 0;
    let cursor;
    for (let page = 0; page < 1000; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined);
      tools += result.tools.length;
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  } finally {
    await client.close();
  }
}

async function main() {
  let next = 0;
  let ok = 0;
  let tools = 0;
  const errors = [];
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  async function lane() {
    while (next < count) {
      const i = next++;
      try {
        const found = await discoverOne(`${base}/s/${i}/mcp`);
        tools += found;
        ok++;
      } catch (err) {
        if (errors.length < 5) errors.push(`${i}: ${err && err.message}`);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  process.stdout.write(JSON.stringify({ ms, cpuMs, ok, failed: count - ok, tools, errors }) + '\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(String(err && err.stack) + '\n');
    process.exit(1);
  },
);
