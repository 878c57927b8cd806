import { UpstreamError } from '@app/domain';
import { PipedreamTokenProvider, REFUSAL_REFETCH_INTERVAL_MS } from './pipedream-token.provider';
import { pipedreamHeaders } from './pipedream-headers';

const config = { apiUrl: 'https://pd.example/', clientId: 'cid', clientSecret: 'csecret-value' };

function tokenEndpoint(answers: { status?: number; body: unknown }[]) {
  const calls: { url: string; body: unknown }[] = [];
  const impl = (async (url: string, init: RequestInit) => {
    calls.push({ url, body: JSON.parse(String(init.body)) });
    const a = answers[Math.min(calls.length - 1, answers.length - 1)];
    await new Promise((r) => setImmediate(r));
    return new Response(JSON.stringify(a.body), { status: a.status ?? 200, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { impl, calls };
}

describe('PipedreamTokenProvider', () => {
  it('posts the client credentials as JSON to {apiUrl}/v1/oauth/token', async () => {
    const ep = tokenEndpoint([{ body: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 } }]);
    const p = new PipedreamTokenProvider(config, { fetch: ep.impl });
    await expect(p.getToken()).resolves.toBe('tok-1');
    expect(ep.calls).toEqual([
      { url: 'https://pd.example/v1/oauth/token', body: { grant_type: 'client_credentials', client_id: 'cid', client_secret: 'csecret-value' } },
    ]);
  });

  it('reuses the token until shortly before it expires, then refreshes', async () => {
    let now = 1_000_000;
    const ep = tokenEndpoint([
      { body: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 } },
      { body: { access_token: 'tok-2', token_type: 'Bearer', expires_in: 3600 } },
    ]);
    const p = new PipedreamTokenProvider(config, { fetch: ep.impl, now: () => now });
    expect(await p.getToken()).toBe('tok-1');
    now += 3_500_000;
    expect(await p.getToken()).toBe('tok-1');
    now += 50_000; // within the last minute of the hour
    expect(await p.getToken()).toBe('tok-2');
    expect(ep.calls).toHaveLength(2);
  });

  it('shares one request among concurrent callers', async () => {
    const ep = tokenEndpoint([{ body: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 } }]);
    const p = new PipedreamTokenProvider(config, { fetch: ep.impl });
    const tokens = await Promise.all(Array.from({ length: 20 }, () => p.getToken()));
    expect(new Set(tokens)).toEqual(new Set(['tok-1']));
    expect(ep.calls).toHaveLength(1);
    expect(p.fetchCount).toBe(1);
  });

  it('refuses a failed exchange with an error that names neither the secret nor a token', async () => {
    const ep = tokenEndpoint([{ status: 401, body: { error: 'invalid_client', client_secret: 'csecret-value' } }]);
    const p = new PipedreamTokenProvider(config, { fetch: ep.impl });
    const err = await p.getToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toContain('HTTP 401');
    expect((err as Error).message).not.toContain('csecret-value');
    // A failure is not cached: the next call tries again.
    await p.getToken().catch(() => undefined);
    expect(ep.calls).toHaveLength(2);
  });

  it('refuses an answer without an access token or with another token type', async () => {
    const none = new PipedreamTokenProvider(config, { fetch: tokenEndpoint([{ body: { token_type: 'Bearer' } }]).impl });
    await expect(none.getToken()).rejects.toThrow('without an access token');
    const mac = new PipedreamTokenProvider(config, { fetch: tokenEndpoint([{ body: { access_token: 'x', token_type: 'mac' } }]).impl });
    await expect(mac.getToken()).rejects.toThrow('not a bearer token');
  });

  it('drops a refused token once, and keeps a fresh one refused again soon after (at most one refetch per interval)', async () => {
    let now = 1_000_000;
    const ep = tokenEndpoint([1, 2, 3].map((n) => ({ body: { access_token: `tok-${n}`, token_type: 'Bearer', expires_in: 3600 } })));
    const p = new PipedreamTokenProvider(config, { fetch: ep.impl, now: () => now });
    const first = await p.getToken();
    expect(p.invalidate(first)).toBe(true);
    const second = await p.getToken();
    expect(second).not.toBe(first);
    // Refused again at once: not a revocation; the token stays and the caller should not try again.
    expect(p.invalidate(second)).toBe(false);
    expect(await p.getToken()).toBe(second);
    // A refusal of a token that was already replaced says the newer one is used next.
    expect(p.invalidate(first)).toBe(true);
    now += REFUSAL_REFETCH_INTERVAL_MS;
    expect(p.invalidate(second)).toBe(true);
    expect(await p.getToken()).not.toBe(second);
    expect(p.fetchCount).toBe(3);
  });

  it('drops the cached token on invalidate()', async () => {
    const ep = tokenEndpoint([
      { body: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 } },
      { body: { access_token: 'tok-2', token_type: 'Bearer', expires_in: 3600 } },
    ]);
    const p = new PipedreamTokenProvider(config, { fetch: ep.impl });
    await p.getToken();
    p.invalidate();
    expect(await p.getToken()).toBe('tok-2');
  });
});

describe('pipedreamHeaders', () => {
  const pd = { projectId: 'proj_abc', environment: 'development' as const };

  it('carries the token, project, environment, external user and app', () => {
    expect(pipedreamHeaders(pd, 'tok', { tenantId: 'tenant-a', appSlug: 'slack' })).toEqual({
      authorization: 'Bearer tok',
      'x-pd-project-id': 'proj_abc',
      'x-pd-environment': 'development',
      'x-pd-external-user-id': 'tenant-a',
      'x-pd-app-slug': 'slack',
    });
  });

  it('adds the account id only when one is chosen', () => {
    expect(pipedreamHeaders(pd, 'tok', { tenantId: 't', appSlug: 'slack', accountId: 'apn_1' })['x-pd-account-id']).toBe('apn_1');
    expect(pipedreamHeaders(pd, 'tok', { tenantId: 't', appSlug: 'slack', accountId: null })).not.toHaveProperty('x-pd-account-id');
  });

  it('derives the external user from the tenant alone: two tenants never share one', () => {
    const a = pipedreamHeaders(pd, 'tok', { tenantId: 'tenant-a', appSlug: 'slack' });
    const b = pipedreamHeaders(pd, 'tok', { tenantId: 'tenant-b', appSlug: 'slack' });
    expect(a['x-pd-external-user-id']).not.toBe(b['x-pd-external-user-id']);
  });
});
