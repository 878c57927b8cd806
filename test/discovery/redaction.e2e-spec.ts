import { randomBytes } from 'node:crypto';
import { echoesCredentials, stdioFixture } from '../fixtures/hostile-servers';
import { RawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { registerServer, settled } from '../support/servers';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Every form of a secret that must not be found in what the registry stored or answers. */
function leaksOf(text: string, secrets: { long: string[]; short: string[] }): string[] {
  const found: string[] = [];
  const squeezed = text.replace(/\s+/g, '');
  for (const s of secrets.long) {
    const forms = [s, encodeURIComponent(s), b64(s).replace(/=+$/, ''), Buffer.from(s).toString('base64url'), JSON.stringify(s).slice(1, -1)];
    for (const f of forms) if (text.includes(f)) found.push(f);
    if (squeezed.includes(s)) found.push(`${s} (split)`);
    // Inside a longer base64 text, at any alignment: decode every base64-looking run and look inside.
    for (const run of text.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) {
      if (Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1').includes(s)) found.push(`${s} (in base64 ${run.slice(0, 20)}…)`);
    }
  }
  for (const s of secrets.short) {
    const alone = new RegExp(`(?<![A-Za-z0-9])(${s}|${b64(s).replace(/=+$/, '')})(?![A-Za-z0-9])`);
    const m = alone.exec(text);
    if (m) found.push(`${s} as ${m[1]} near ${JSON.stringify(text.slice(Math.max(0, m.index - 20), m.index + 20))}`);
  }
  return found;
}

/**
 * A server that echoes its credentials gets them back from nowhere: everything discovery stores (name, title,
 * version, instructions, capabilities, tools, runs, errors, stderr) is redacted of that server's secrets, in every
 * encoding, over Streamable HTTP and stdio, and a two-character secret too.
 */
describe('redaction of what a server echoes', () => {
  let t: TestApp;
  const fixtures: RawServer[] = [];
  const token = `tok-${randomBytes(18).toString('hex')}`;
  const envToken = `envtok_${randomBytes(15).toString('base64url')}`;
  const shortKey = 'q7';
  const secrets = { long: [token, envToken, `Bearer ${token}`], short: [shortKey] };
  const saved = process.env.MCP_SECRET_ECHO_TOKEN;

  async function everything(id: string): Promise<string> {
    const row = await t.runtime.prisma.server.findUniqueOrThrow({ where: { id } });
    const tools = await t.runtime.prisma.tool.findMany({ where: { serverId: id } });
    const runs = await t.runtime.prisma.discoveryRun.findMany({ where: { serverId: id } });
    const answers = await Promise.all([
      t.request('GET', `/api/v1/servers/${id}`),
      t.request('GET', `/api/v1/servers/${id}/tools`),
      t.request('GET', `/api/v1/servers/${id}/discoveries`),
      t.request('POST', '/api/v1/llm/mcp-get-server-info', { body: { serverId: id } }),
    ]);
    return [JSON.stringify({ row, tools, runs }), ...answers.map((a) => a.text)].join('\n');
  }

  beforeAll(async () => {
    process.env.MCP_SECRET_ECHO_TOKEN = envToken;
    t = await startTestApp({ env: { DISCOVERY_ATTEMPTS: '1', DISCOVERY_TIMEOUT_MS: '15000' } });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(fixtures.map((f) => f.close()));
    if (saved === undefined) delete process.env.MCP_SECRET_ECHO_TOKEN;
    else process.env.MCP_SECRET_ECHO_TOKEN = saved;
  });

  /** A BUILT_IN server over Streamable HTTP, given the bearer token and the short key, that echoes them back (in an error too, with `failing`). */
  const registerEchoing = async (name: string, failing = false) => {
    const fixture = await echoesCredentials(failing);
    fixtures.push(fixture);
    const credentials = { bearerToken: token, headers: { 'X-Api-Key': shortKey } };
    return registerServer(t, { name, kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url, credentials });
  };

  it('stores nothing of the bearer token and a two-character header value a Streamable HTTP server echoes', async () => {
    const { id } = await registerEchoing('echoes-http');
    const row = await settled(t, id);
    expect(row.status).toBe('CONNECTED');
    // The server did get them, and echoed them: the redaction is what keeps them out.
    expect(row.instructions).toContain('[redacted]');
    expect(row.serverName).toBe('echo [redacted]');
    expect(row.instructions).toContain('About the table: keys are fine words.');
    const all = await everything(id);
    expect(leaksOf(all, secrets)).toEqual([]);
    const tools = (await t.request('GET', `/api/v1/servers/${id}/tools`)).body.tools as { name: string }[];
    expect(tools.map((x) => x.name)).toEqual(['echo_[redacted]']);
    // A tool call that fails with an error echoing them: the registry's answer carries none of them.
    const call = await t.request('POST', '/api/v1/llm/mcp-call-tool', { body: { serverId: id, toolName: 'echo_[redacted]', arguments: {} } });
    expect(call.status).toBe(502);
    expect(call.body.detail).toContain('call refused for [redacted], key [redacted], [redacted]');
    expect(leaksOf(call.text, secrets)).toEqual([]);
    expect(leaksOf(t.logs(), secrets)).toEqual([]);
  });

  it('redacts the error a server answers with, as it is stored and shown', async () => {
    const { id } = await registerEchoing('echoes-error', true);
    const row = await settled(t, id);
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toBe('the server answered tools/list with JSON-RPC error -32000: refused for [redacted] ([redacted])');
    expect(leaksOf(await everything(id), secrets)).toEqual([]);
  });

  it('stores nothing of the environment credential a stdio server echoes, stderr included', async () => {
    const { id } = await registerServer(t, {
      name: 'echoes-stdio',
      kind: 'BUILT_IN',
      transport: 'stdio',
      ...stdioFixture('echoes-env.cjs', 'MCP_SECRET_ECHO_TOKEN'),
      credentials: { env: 'MCP_SECRET_ECHO_TOKEN' },
    });
    const row = await settled(t, id);
    expect(row.status).toBe('CONNECTED');
    expect(row.serverName).toBe('env-echo [redacted]');
    expect(row.serverVersion).toBe('[redacted]');
    expect(row.instructions).toContain('About the table.');
    const [run] = await t.runtime.prisma.discoveryRun.findMany({ where: { serverId: id } });
    expect(run.stderr).toContain('starting with [redacted]');
    expect(leaksOf(await everything(id), secrets)).toEqual([]);
  });
});
