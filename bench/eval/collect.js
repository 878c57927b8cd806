#!/usr/bin/env node
// Regenerates the tool lists of bench/eval/servers/*.json from the servers' npm packages:
//
//   node bench/eval/collect.js [id...]        (default: every source in bench/eval/sources.json)
//
// For each source it installs the pinned package into a scratch directory with npm (install scripts off, so
// nothing downloads a browser or a binary of its own), starts the server over stdio inside a network
// namespace of its own (`unshare -n`: loopback only, down, so a server that tries to reach its vendor at start
// fails instead of calling out), with placeholder values for the variables it insists on, lists every page of
// tools/list with the MCP SDK's client, and writes bench/eval/servers/<id>.json. The tests and the bench read
// the committed files; nothing here runs in a test.
'use strict';
const { execFile, spawnSync } = require('node:child_process');
const { promisify } = require('node:util');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const EVAL_DIR = __dirname;
const OUT_DIR = path.join(EVAL_DIR, 'servers');
const SOURCES = JSON.parse(fs.readFileSync(path.join(EVAL_DIR, 'sources.json'), 'utf8')).sources;
const LIST_TIMEOUT_MS = 60_000;
const MAX_PAGES = 50;

function assertIsolation() {
  const r = spawnSync('unshare', ['-n', '--', 'true']);
  if (r.status !== 0) {
    throw new Error('`unshare -n` is not available (it needs root or user namespaces): the servers would be started with network access, which this script refuses to do');
  }
}

/** Asynchronous, so that the other servers' sessions are answered while one package installs. */
async function install(source, dir) {
  const spec = `${source.package}@${source.version}`;
  await promisify(execFile)('npm', ['install', '--prefix', dir, '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=error', spec], {
    timeout: 10 * 60_000,
    maxBuffer: 16 * 2 ** 20,
  });
  const pkgDir = path.join(dir, 'node_modules', ...source.package.split('/'));
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  if (pkg.version !== source.version) throw new Error(`${spec}: npm installed ${pkg.version}`);
  const bins = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
  const binName = source.bin ?? Object.keys(bins)[0];
  const rel = source.main ?? bins[binName];
  if (!rel) throw new Error(`${spec}: no bin to start (set "bin" or "main" in sources.json)`);
  return path.join(pkgDir, rel);
}

/** Only what a server needs to start: no variable of this machine's environment beyond PATH. */
function environment(source, dir) {
  return {
    PATH: process.env.PATH,
    HOME: dir,
    TMPDIR: dir,
    NODE_ENV: 'production',
    ...Object.fromEntries(Object.entries(source.env ?? {}).map(([k, v]) => [k, v.replaceAll('$DIR', dir)])),
  };
}

function clean(tool) {
  const out = { name: tool.name };
  if (tool.title !== undefined) out.title = tool.title;
  out.description = tool.description ?? '';
  if (tool.inputSchema !== undefined) out.inputSchema = tool.inputSchema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  return out;
}

async function list(source, entry, dir) {
  const args = (source.args ?? []).map((a) => a.replaceAll('$DIR', dir));
  // placeholder configuration files a server reads at start (a kubeconfig, a CLI's login file)
  for (const [rel, content] of Object.entries(source.files ?? {})) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  const transport = new StdioClientTransport({
    command: 'unshare',
    args: ['-n', '--', process.execPath, entry, ...args],
    env: environment(source, dir),
    cwd: dir,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const client = new Client({ name: 'bench-eval-collect', version: '1.0.0' });
  const timer = setTimeout(() => transport.close().catch(() => {}), LIST_TIMEOUT_MS);
  try {
    await client.connect(transport);
    const tools = [];
    let cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
      const r = await client.listTools(cursor ? { cursor } : {});
      tools.push(...r.tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    const info = client.getServerVersion() ?? {};
    return { tools, info, instructions: client.getInstructions() };
  } catch (err) {
    throw new Error(`${source.id}: ${err.message}\n${stderr}`);
  } finally {
    clearTimeout(timer);
    const pid = transport.pid;
    await client.close().catch(() => {});
    // a server that ignores the end of its input and SIGTERM is not left running
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

async function collect(source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `eval-${source.id}-`));
  try {
    const entry = await install(source, dir);
    const { tools, info, instructions } = await list(source, entry, dir);
    if (tools.length === 0) throw new Error(`${source.id}: the server listed no tools`);
    const server = {
      id: source.id,
      name: source.name,
      kind: source.kind,
      source: `npm ${source.package}@${source.version}, run over stdio; tools/list of ${info.name ?? '?'} ${info.version ?? '?'}`,
      serverInfo: { name: info.name, ...(info.title ? { title: info.title } : {}), version: info.version },
      ...(instructions ? { instructions } : {}),
      tools: tools.map(clean),
    };
    fs.writeFileSync(path.join(OUT_DIR, `${source.id}.json`), JSON.stringify(server, null, 1) + '\n');
    return { id: source.id, tools: tools.length };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  assertIsolation();
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const wanted = process.argv.slice(2);
  const sources = wanted.length ? SOURCES.filter((s) => wanted.includes(s.id)) : SOURCES;
  const unknown = wanted.filter((id) => !SOURCES.some((s) => s.id === id));
  if (unknown.length) throw new Error(`not in sources.json: ${unknown.join(', ')}`);
  let failed = 0;
  // a few at a time: installing is mostly waiting for the registry
  const queue = [...sources];
  const worker = async () => {
    for (let s = queue.shift(); s; s = queue.shift()) {
      try {
        const r = await collect(s);
        process.stdout.write(`${r.id}: ${r.tools} tools\n`);
      } catch (err) {
        failed++;
        process.stdout.write(`${s.id}: FAILED ${err.message.split('\n').slice(0, 6).join(' | ')}\n`);
      }
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
