import {
  closedPort,
  crashesMidList,
  Fixture,
  hangsInToolsList,
  hugePage,
  invalidJson,
  jsonRpcError,
  malformedTool,
  redirectsToMetadata,
  silentAcceptor,
  stdioFixture,
  toolFlood,
  unauthorized,
} from '../fixtures/hostile-servers';
import { RunningServer, startModernServer, startPaginatedServer } from '../fixtures/reference-servers';
import { useTestApp } from '../support/app';
import { makeTenant, registerServer, runsOf, settled, toolsOf } from '../support/servers';

// Generous, so that the well-behaved servers (and the byte bound) finish well inside it on a loaded 2-core machine.
const TIMEOUT_MS = 8000;
const ATTEMPTS = 2;

interface Expectation {
  status: 'CONNECTED' | 'ERROR';
  /** Text the status reason must contain (the documented outcome). */
  reason?: RegExp;
  /** Attempts made: transient failures are retried up to DISCOVERY_ATTEMPTS, permanent ones are not. */
  runs: number;
}

/**
 * Each hostile fixture breaks the protocol in one way. All are registered at
 * once, next to well-behaved servers, so that the test also shows that one
 * server's misbehaviour does not delay or harm the discovery of the others.
 */
describe('discovery of hostile servers', () => {
  const t = useTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_TIMEOUT_MS: String(TIMEOUT_MS), DISCOVERY_ATTEMPTS: String(ATTEMPTS) } });
  let tenant: { tenantId: string; key: string };
  const fixtures: (Fixture | RunningServer)[] = [];
  const ids: Record<string, string> = {};
  const token = `hostile-secret-${Math.random().toString(36).slice(2)}`;

  const http: Record<string, () => Promise<Fixture>> = {
    closedPort,
    silentAcceptor,
    hangsInToolsList,
    crashesMidList,
    invalidJson,
    jsonRpcError,
    unauthorized,
    redirectsToMetadata,
    toolFlood: () => toolFlood(100_000, 1000),
    hugePage: () => hugePage(17),
    malformedTool,
    good: () => startPaginatedServer(25, 10),
    goodModern: startModernServer,
  };

  const expected: Record<string, Expectation> = {
    closedPort: { status: 'ERROR', reason: /connection was refused/, runs: ATTEMPTS },
    silentAcceptor: { status: 'ERROR', reason: new RegExp(`no answer within ${TIMEOUT_MS} ms \\(while waiting for initialize\\)`), runs: ATTEMPTS },
    hangsInToolsList: { status: 'ERROR', reason: new RegExp(`no answer within ${TIMEOUT_MS} ms \\(while waiting for tools/list\\)`), runs: ATTEMPTS },
    crashesMidList: { status: 'ERROR', reason: /(closed|reset) the connection.*tools\/list page 2/, runs: ATTEMPTS },
    invalidJson: { status: 'ERROR', reason: /answer to initialize is not valid JSON/, runs: 1 },
    jsonRpcError: { status: 'ERROR', reason: /answered tools\/list with JSON-RPC error -32000: tool catalogue unavailable/, runs: 1 },
    unauthorized: { status: 'ERROR', reason: /401 Unauthorized: the credentials are missing, wrong or expired/, runs: 1 },
    redirectsToMetadata: { status: 'ERROR', reason: /outbound address policy refused the connection: .*169\.254\.169\.254/, runs: 1 },
    toolFlood: { status: 'ERROR', reason: /lists more than 10000 tools/, runs: 1 },
    hugePage: { status: 'ERROR', reason: /sent more than 16 MiB/, runs: 1 },
    malformedTool: { status: 'CONNECTED', runs: 1 },
    good: { status: 'CONNECTED', runs: 1 },
    goodModern: { status: 'CONNECTED', runs: 1 },
    stdioGarbage: { status: 'ERROR', reason: /line 1 of the server's stdout is not a JSON-RPC message/, runs: 1 },
    stdioExits: { status: 'ERROR', reason: /exited with code 3 .*configuration file \/etc\/fixture.json not found/, runs: 1 },
    stdioMissing: { status: 'ERROR', reason: /could not be started \(not found\)/, runs: 1 },
  };

  beforeAll(async () => {
    tenant = await makeTenant(t);
    const started = await Promise.all(Object.entries(http).map(async ([name, start]) => [name, await start()] as const));
    for (const [name, fixture] of started) {
      fixtures.push(fixture);
      const credentials = name === 'unauthorized' ? { bearerToken: token } : undefined;
      ids[name] = (await registerServer(t, { name, transport: 'streamable-http', url: fixture.url, credentials }, tenant.key)).id;
    }
    const stdio = {
      stdioGarbage: stdioFixture('garbage-stdout.cjs'),
      stdioExits: stdioFixture('exits-at-once.cjs'),
      stdioMissing: { command: '/nonexistent/mcp-server', args: [] },
    };
    for (const [name, cmd] of Object.entries(stdio)) {
      ids[name] = (await registerServer(t, { name, kind: 'BUILT_IN', transport: 'stdio', ...cmd })).id;
    }
  });
  afterAll(async () => {
    await Promise.all(fixtures.map((f) => f.close()));
  });

  it('ends each hostile server with its documented outcome, retrying only transient failures', async () => {
    const outcomes: Record<string, { status: string; reason: string | null; runs: number; errors: (string | null)[] }> = {};
    for (const [name, id] of Object.entries(ids)) {
      const row = await settled(t, id, 60_000);
      const runs = await runsOf(t, id);
      outcomes[name] = { status: row.status, reason: row.statusReason, runs: runs.length, errors: runs.map((r) => r.error) };
    }
    // One comparison of the whole table, so that a failure shows every server's outcome at once.
    const actual = Object.fromEntries(
      Object.entries(expected).map(([name, want]) => {
        const got = outcomes[name];
        const reasonOk = want.reason ? want.reason.test(got.reason ?? '') : got.reason === null;
        const runs = got.runs === want.runs ? got.runs : `${got.runs}: ${got.errors.join(' | ')}`;
        return [name, { status: got.status, runs, reason: reasonOk ? 'as documented' : got.reason }];
      }),
    );
    const documented = Object.fromEntries(Object.entries(expected).map(([name, want]) => [name, { status: want.status, runs: want.runs, reason: 'as documented' }]));
    expect(actual).toEqual(documented);
  });

  it('keeps the good tools of a server that lists malformed ones, and reports the dropped ones on the run', async () => {
    expect((await toolsOf(t, ids.malformedTool)).map((x) => x.name)).toEqual(['good_one', 'good_two', 'good_three']);
    const [run] = await runsOf(t, ids.malformedTool);
    expect(run).toMatchObject({ outcome: 'SUCCEEDED', toolCount: 3 });
    expect(run.dropped).toEqual([
      { index: 1, name: 'bad_schema', reason: 'inputSchema is missing or not an object' },
      { index: 3, reason: 'name is missing or not a string' },
    ]);
  });

  it('discovers the well-behaved servers registered alongside, without waiting for the hanging ones', async () => {
    for (const name of ['good', 'goodModern']) {
      const [run] = await runsOf(t, ids[name]);
      expect(run.outcome).toBe('SUCCEEDED');
      expect(run.durationMs).toBeLessThan(TIMEOUT_MS);
    }
    expect((await toolsOf(t, ids.good)).length).toBe(25);
  });

  it('records every attempt of a transient failure, then the final error, and keeps stderr of stdio servers on the run', async () => {
    const runs = await runsOf(t, ids.closedPort);
    expect(runs.map((r) => [r.attempt, r.outcome])).toEqual([
      [1, 'FAILED'],
      [2, 'FAILED'],
    ]);
    expect(runs[0].error).toMatch(/^attempt 1 of 2 failed: .*connection was refused.*; trying again$/);
    const [exits] = await runsOf(t, ids.stdioExits);
    expect(exits.stderr).toContain('fatal: configuration file /etc/fixture.json not found');
    const [garbage] = await runsOf(t, ids.stdioGarbage);
    expect(garbage.stderr).toContain('garbage fixture starting');
  });

  it('does not stop reading the flood only after it is in memory: it stops at the bound', async () => {
    const [run] = await runsOf(t, ids.toolFlood);
    expect(run.outcome).toBe('FAILED');
    expect(await toolsOf(t, ids.toolFlood)).toEqual([]);
  });

  it('never puts a credential in a status reason, a run or the log', async () => {
    const row = await settled(t, ids.unauthorized);
    const runs = await runsOf(t, ids.unauthorized);
    expect(JSON.stringify([row, runs])).not.toContain(token);
    expect(t.logs()).not.toContain(token);
  });

  it('counts the attempts by outcome in the metrics', async () => {
    const res = await t.request('GET', '/metrics', { key: null });
    expect(res.text).toMatch(/mcpr_discoveries_total\{outcome="succeeded"\} [1-9]/);
    expect(res.text).toMatch(/mcpr_discoveries_total\{outcome="failed"\} [1-9]/);
    expect(res.text).toMatch(/mcpr_discoveries_total\{outcome="retrying"\} [1-9]/);
    expect(res.text).toMatch(/mcpr_discovery_duration_seconds_count\{outcome="failed"\} [1-9]/);
  });
});
