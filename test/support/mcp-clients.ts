import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
export const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');
/** The Python MCP SDK's virtual environment, made by .ci/run (see docs/mcp.md: python3 -m venv … && pip install mcp==2.3.0). */
export const PYTHON_VENV = join(ROOT, 'node_modules/.cache/mcp-python');
const PYTHON_CLIENT = join(ROOT, 'test/mcp-endpoints/python-client.py');

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A TypeScript SDK 1.x client (the initialize era) on an MCP endpoint. */
export async function sdk1Client(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'sdk1-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer(key) } }));
  return client;
}

/** A TypeScript SDK 2.x client: `pinned` speaks 2026-07-28 only; `auto` probes server/discover and falls back to initialize. */
export async function sdk2Client(url: string, key: string, mode: 'pinned' | 'auto', options: ConstructorParameters<typeof Client2>[1] = {}): Promise<Client2> {
  const client = new Client2({ name: 'sdk2-e2e', version: '1.0.0' }, { ...options, versionNegotiation: { mode: mode === 'pinned' ? { pin: '2026-07-28' } : 'auto' } });
  await client.connect(new Transport2(new URL(url), { requestInit: { headers: bearer(key) } }));
  return client;
}

/** `@modelcontextprotocol/inspector-cli` in CLI mode against an MCP endpoint, as a person would run it. */
export async function inspector(url: string, key: string, args: string[]): Promise<any> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, '--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args],
    // It finds its own package.json by a path relative to the working directory: run it from its build directory.
    { timeout: 30_000, cwd: dirname(INSPECTOR), env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` } },
  );
  return JSON.parse(stdout);
}

/** The Python interpreter that has the MCP SDK, or why there is none. */
export function pythonMcp(): { python: string } | { missing: string } {
  const python = join(PYTHON_VENV, 'bin/python');
  if (!existsSync(python)) return { missing: `no virtual environment at ${PYTHON_VENV} (.ci/run makes it with pip install mcp==2.3.0)` };
  const probe = spawnSync(python, ['-c', 'import mcp'], { encoding: 'utf8' });
  if (probe.status !== 0) return { missing: `python's mcp package is not importable in ${PYTHON_VENV}: ${probe.stderr.trim().split('\n').pop()}` };
  return { python };
}

/** The Python MCP SDK lists the tools and calls one, in the era asked for. */
export async function pythonClient(
  python: string,
  url: string,
  key: string,
  era: 'initialize' | 'discover',
  tool: string,
  args: Record<string, unknown>,
  resourceUri?: string,
): Promise<{ protocolVersion: string; tools: string[]; result: any; resource?: any }> {
  const argv = [PYTHON_CLIENT, url, key, era, tool, JSON.stringify(args), ...(resourceUri ? [resourceUri] : [])];
  const { stdout } = await run(python, argv, { timeout: 60_000 });
  return JSON.parse(stdout);
}

/** inspector-cli's tools/call of one tool; each argument is given as `name=value` (objects as JSON). */
export function inspectorCall(url: string, key: string, tool: string, args: Record<string, unknown>): Promise<any> {
  const pairs = Object.entries(args).flatMap(([name, value]) => ['--tool-arg', `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`]);
  return inspector(url, key, ['--method', 'tools/call', '--tool-name', tool, ...pairs]);
}
