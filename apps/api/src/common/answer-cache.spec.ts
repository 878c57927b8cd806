import { Principal } from '@app/domain';
import { startTestApp, TestApp } from '../../../../test/support/app';
import { registerServer, tenantPrincipal, waitFor } from '../../../../test/support/servers';
import { AnswerCache } from './answer-cache';

/**
 * When a kept answer is served and when it is read afresh, on the real database's change announcements: kept
 * until the server it is about changes, never served to a tenant who may not see it, and not kept across a write
 * through this process.
 */
describe('AnswerCache', () => {
  let t: TestApp;
  let cache: AnswerCache;
  let tenant: Principal & { type: 'tenant' };
  let other: Principal & { type: 'tenant' };
  let serverId: string;
  let reads = 0;

  /** The answer about the tenant's server, counting how often it is read from the database. */
  const ask = (principal: Principal) =>
    cache.answer(`spec:${serverId}`, principal, async () => {
      reads++;
      return { value: { serverId, read: reads }, subject: { serverId, tenantId: tenant.tenantId } };
    });

  beforeAll(async () => {
    t = await startTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    cache = t.app.get(AnswerCache);
    const a = await tenantPrincipal(t);
    [tenant, other] = [a, await tenantPrincipal(t)];
    serverId = (await registerServer(t, { name: 'cached', transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp', enabled: false }, a.key)).id;
    await waitFor('the cache to listen', async () => cache.active);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('serves the kept answer, the same bytes and tag, until the server changes; then reads afresh', async () => {
    const first = await ask(tenant);
    const again = await ask(tenant);
    expect(again).toBe(first);
    const readsBefore = reads;
    // A change made behind the API's back: the database's announcement is what drops the answer.
    await t.runtime.prisma.server.update({ where: { id: serverId }, data: { metadata: { team: 'spec' } } });
    const fresh = await waitFor('the change to be heard', async () => {
      const answer = await ask(tenant);
      return answer !== first ? answer : undefined;
    });
    expect(reads).toBeGreaterThan(readsBefore);
    expect(fresh.etag).not.toBe(first.etag);
  });

  it("never serves a tenant the kept answer about another tenant's server: it is read for them (where the repository says 404)", async () => {
    const kept = await ask(tenant);
    const readsBefore = reads;
    const forOther = await ask(other);
    expect(reads).toBe(readsBefore + 1);
    expect(forOther).not.toBe(kept);
  });

  it('keeps nothing while a write through this process is under way, and serves nothing kept before it', async () => {
    const kept = await ask(tenant);
    const end = cache.beginWrite();
    try {
      expect(cache.active).toBe(false);
      expect(await ask(tenant)).not.toBe(kept);
    } finally {
      end();
    }
    const after = await ask(tenant);
    expect(after).not.toBe(kept);
    expect(await ask(tenant)).toBe(after);
  });
});
