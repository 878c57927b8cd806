import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallFixture, startCallFixture } from '../llm/call-fixtures';
import { eventually } from '../llm/helpers';
import { createTestDatabase, hasPostgres, TestDatabase } from '../support/database';
import { AppProcess, ensureBuilt, killAll, listeningUrl, startApi } from './app-process';

/**
 * SIGTERM while a tool call runs, on a real process (dist/): the HTTP server stops taking requests, the call in
 * flight finishes within SHUTDOWN_TIMEOUT_MS as a job would, and one still running at the bound is answered 503
 * saying that the registry stopped (not a 502 blaming the server it called).
 */
(hasPostgres() ? describe : describe.skip)('a tool call in flight when the registry is stopped (needs TEST_DATABASE_URL)', () => {
  let fixture: CallFixture;
  const databases: TestDatabase[] = [];
  const dirs: string[] = [];
  const adminKey = 'mcpr_admin_' + randomBytes(18).toString('base64url');

  beforeAll(async () => {
    await ensureBuilt();
    fixture = await startCallFixture();
  });

  afterAll(async () => {
    killAll();
    await fixture?.close();
    for (const db of databases) await db.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** An api+worker process on a database of its own, with the fixture registered and callable. */
  async function startRegistry(shutdownMs: number): Promise<{ p: AppProcess; url: string; serverId: string }> {
    const db = await createTestDatabase();
    databases.push(db);
    const dataDir = mkdtempSync(join(tmpdir(), 'mcpr-stop-'));
    dirs.push(dataDir);
    const p = startApi({
      DATA_DIR: dataDir,
      DATABASE_URL: db.url!,
      PORT: '0',
      ADMIN_API_KEY: adminKey,
      CREDENTIALS_KEY: randomBytes(32).toString('base64'),
      SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
    });
    const url = await listeningUrl(p, 45_000);
    const created = await admin(url, 'POST', '/api/v1/servers', { name: 'slow-tools', kind: 'BUILT_IN', transport: 'streamable-http', url: fixture.url });
    expect(created.status).toBe(201);
    const serverId = ((await created.json()) as { id: string }).id;
    await eventually('the fixture callable', async () => (await callTool(url, serverId, 'echo', { message: 'ready?' })).status === 200);
    return { p, url, serverId };
  }

  const admin = (url: string, method: string, path: string, body?: unknown) =>
    fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const callTool = (url: string, serverId: string, toolName: string, args: Record<string, unknown>) =>
    admin(url, 'POST', '/api/v1/llm/mcp-call-tool', { serverId, toolName, arguments: args });

  /** Starts a call of `progress` and resolves, once it has reached the tool, with the answer to come. */
  async function slowCall(url: string, serverId: string, steps: number, stepMs: number): Promise<{ answer: Promise<Response> }> {
    const before = fixture.progressCalls();
    const answer = callTool(url, serverId, 'progress', { steps, stepMs });
    await eventually('the call to reach the tool', async () => fixture.progressCalls() > before);
    return { answer };
  }

  it('lets a call in flight finish, refusing new requests meanwhile, and exits 0', async () => {
    const { p, url, serverId } = await startRegistry(10_000);
    const { answer } = await slowCall(url, serverId, 5, 400);
    const signalled = Date.now();
    p.child.kill('SIGTERM');
    await p.waitFor(/no longer accepting requests/);
    // A request after the stop began is not taken: no connection, or 503 on a connection kept open.
    const late = await fetch(`${url}/health/live`).then(
      (res) => `status ${res.status}`,
      () => 'refused',
    );
    expect(['refused', 'status 503']).toContain(late);

    const res = await answer;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ content: [{ type: 'text', text: 'done after 5 steps' }] });
    const exit = await p.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(10_000);
  });

  it('answers a call still running at SHUTDOWN_TIMEOUT_MS with a 503 that says the registry stopped', async () => {
    const { p, url, serverId } = await startRegistry(1500);
    const { answer } = await slowCall(url, serverId, 40, 500);
    const signalled = Date.now();
    p.child.kill('SIGTERM');
    const res = await answer;
    const tookMs = Date.now() - signalled;
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('1');
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toBe(
      'the registry stopped before the call of tool "progress" on server "slow-tools" finished (it waits 1500 ms for calls in flight when it stops); call again',
    );
    // Cut at the bound, not at once, nor after the call would have ended (20 s).
    expect(tookMs).toBeGreaterThanOrEqual(1400);
    expect(tookMs).toBeLessThan(6000);
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });
});
