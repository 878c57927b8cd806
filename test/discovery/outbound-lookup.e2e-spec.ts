import type { LookupAddress } from 'node:dns';
import { useTestApp } from '../support/app';
import { fakeResolver } from '../support/fake-resolver';
import { makeTenant, registerServer, runsOf, settled } from '../support/servers';

const { answers, asked, module: TestResolverModule } = fakeResolver();

const aaaa = (address: string): LookupAddress[] => [{ address, family: 6 }];

describe('the outbound policy on resolved addresses', () => {
  const t = useTestApp({ modules: [TestResolverModule], env: { DISCOVERY_ATTEMPTS: '2', DISCOVERY_TIMEOUT_MS: '5000' } });
  let tenant: { tenantId: string; key: string };

  beforeAll(async () => {
    tenant = await makeTenant(t);
  });

  it.each([
    ['mapped', '::ffff:127.0.0.1', /IPv4-mapped address .* carries 127\.0\.0\.1/],
    ['compatible', '::127.0.0.1', /IPv4-compatible address .* carries 127\.0\.0\.1/],
    ['nat64', '64:ff9b::a9fe:a9fe', /NAT64 address .* carries 169\.254\.169\.254/],
    ['local-nat64', '64:ff9b:1::7f00:1', /local-use NAT64 address .* carries 127\.0\.0\.1/],
    ['sixtofour', '2002:a00:1::', /6to4 address .* carries 10\.0\.0\.1/],
    ['sitelocal', 'fec0::1', /site-local/],
  ])('refuses at registration a host whose AAAA record is %s (%s): 400 naming the field, nothing stored', async (name, address, reason) => {
    const host = `${name}.registration.test`;
    answers.set(host, [aaaa(address)]);
    const before = await t.runtime.prisma.server.count();
    const res = await t.request('POST', '/api/v1/servers', { key: tenant.key, body: { name, transport: 'streamable-http', url: `https://${host}/mcp` } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'url', message: expect.stringMatching(reason) }]);
    expect(res.body.detail).toContain(`${host} resolves to ${address}`);
    expect(await t.runtime.prisma.server.count()).toBe(before);
    expect(asked).toContain(host);
  });

  it.each([
    ['streamable-http', '64:ff9b::7f00:1', /NAT64 address .* carries 127\.0\.0\.1/],
    ['sse', '2002:7f00:1::', /6to4 address .* carries 127\.0\.0\.1/],
    ['streamable-http', '::7f00:1', /IPv4-compatible address .* carries 127\.0\.0\.1/],
  ])('refuses at connect time (%s) a host that resolved to a public address at registration and to %s since', async (transport, address, reason) => {
    const host = `rebind-${transport}-${address.replace(/:/g, '-')}.test`;
    // Registration sees a public address; every lookup after it, the discovery's connection among them, the AAAA record.
    answers.set(host, [[{ address: '93.184.215.14', family: 4 }], aaaa(address)]);
    const { id } = await registerServer(t, { name: host, transport, url: `https://${host}/mcp` }, tenant.key);
    const row = await settled(t, id);
    expect(row.status).toBe('ERROR');
    expect(row.statusReason).toMatch(/^the outbound address policy refused the connection: /);
    expect(row.statusReason).toContain(`${host} resolves to ${address}`);
    expect(row.statusReason).toMatch(reason);
    // Permanent: refused once, not retried.
    expect(await runsOf(t, id)).toHaveLength(1);
    expect(asked.filter((h) => h === host).length).toBeGreaterThanOrEqual(2);
  });
});
