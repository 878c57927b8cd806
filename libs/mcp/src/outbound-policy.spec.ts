import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { OutboundBlockedError, OutboundPolicy } from './outbound-policy';

/**
 * Address forms and their verdicts for a tenant server with no allow list: `true` reachable, else the reason
 * the refusal gives. A URL host (`https://<host>/`) is read as WHATWG URL reads it; docs/security.md shows the
 * same table.
 */
const URL_HOSTS: [string, true | RegExp][] = [
  // IPv4, and the odd forms a URL parser turns into it
  ['127.0.0.1', /loopback range 127\.0\.0\.0\/8/],
  ['127.1', /127\.0\.0\.1 an address in the loopback range/],
  ['0x7f.1', /127\.0\.0\.1 an address in the loopback range/],
  ['2130706433', /127\.0\.0\.1 an address in the loopback range/],
  ['0177.0.0.1', /127\.0\.0\.1 an address in the loopback range/],
  ['0x7f000001', /127\.0\.0\.1 an address in the loopback range/],
  ['%31%32%37.0.0.1', /127\.0\.0\.1 an address in the loopback range/],
  ['0.0.0.0', /"this network" range 0\.0\.0\.0\/8/],
  ['10.0.0.1', /private-use range 10\.0\.0\.0\/8/],
  ['172.16.5.4', /private-use range 172\.16\.0\.0\/12/],
  ['192.168.1.1', /private-use range 192\.168\.0\.0\/16/],
  ['100.64.0.1', /carrier-grade NAT range 100\.64\.0\.0\/10/],
  ['169.254.169.254', /link-local, cloud metadata range 169\.254\.0\.0\/16/],
  ['192.0.0.8', /IETF protocol assignments range 192\.0\.0\.0\/24/],
  ['192.0.2.1', /documentation range 192\.0\.2\.0\/24/],
  ['198.51.100.7', /documentation range 198\.51\.100\.0\/24/],
  ['203.0.113.9', /documentation range 203\.0\.113\.0\/24/],
  ['192.88.99.1', /deprecated 6to4 relay anycast range/],
  ['198.18.0.1', /benchmarking range 198\.18\.0\.0\/15/],
  ['224.0.0.1', /multicast range 224\.0\.0\.0\/4/],
  ['240.0.0.1', /reserved range 240\.0\.0\.0\/4/],
  ['255.255.255.255', /limited broadcast range/],
  ['8.8.8.8', true],
  ['93.184.215.14', true],
  ['192.31.196.1', true],
  // IPv6
  ['[::]', /unspecified range ::\/128/],
  ['[::1]', /loopback range ::1\/128/],
  ['[::ffff:127.0.0.1]', /IPv4-mapped address \(::ffff:0:0\/96\) that carries 127\.0\.0\.1, an address in the loopback range/],
  ['[::ffff:7f00:1]', /IPv4-mapped address .* carries 127\.0\.0\.1/],
  ['[::ffff:192.168.1.1]', /IPv4-mapped address .* carries 192\.168\.1\.1, an address in the private-use range/],
  ['[::ffff:8.8.8.8]', true],
  ['[::127.0.0.1]', /IPv4-compatible address \(::\/96\) that carries 127\.0\.0\.1, an address in the loopback range/],
  ['[::10.0.0.1]', /IPv4-compatible address .* carries 10\.0\.0\.1, an address in the private-use range/],
  ['[::2]', /IPv4-compatible address .* carries 0\.0\.0\.2, an address in the "this network" range/],
  ['[::8.8.8.8]', true],
  ['[::ffff:0:127.0.0.1]', /IPv4-translated address \(::ffff:0:0:0\/96\) that carries 127\.0\.0\.1/],
  ['[::ffff:0:8.8.8.8]', true],
  ['[64:ff9b::127.0.0.1]', /NAT64 address \(64:ff9b::\/96\) that carries 127\.0\.0\.1/],
  ['[64:ff9b::a9fe:a9fe]', /NAT64 address .* carries 169\.254\.169\.254, an address in the link-local/],
  ['[64:ff9b::808:808]', true],
  ['[64:ff9b:1::7f00:1]', /local-use NAT64 address \(64:ff9b:1::\/48\) that carries 127\.0\.0\.1/],
  ['[64:ff9b:1::808:808]', /local-use NAT64 range 64:ff9b:1::\/48, which is not globally reachable/],
  ['[2002:7f00:1::]', /6to4 address \(2002::\/16\) that carries 127\.0\.0\.1/],
  ['[2002:a00:1::1]', /6to4 address .* carries 10\.0\.0\.1/],
  ['[2002:808:808::1]', true],
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', /Teredo address \(2001::\/32\) whose client address is 192\.0\.2\.45, an address in the documentation range/],
  ['[2001:0:7f00:1::]', /Teredo address .* whose server address is 127\.0\.0\.1/],
  ['[2001:0:4136:e378:8000:63bf:3fff:f7f7]', true],
  ['[fec0::1]', /site-local, deprecated range fec0::\/10/],
  ['[fc00::1]', /unique local, private range fc00::\/7/],
  ['[fd00:ec2::254]', /unique local/],
  ['[fe80::1]', /link-local range fe80::\/10/],
  ['[ff02::1]', /multicast range ff00::\/8/],
  ['[2001:db8::1]', /documentation range 2001:db8::\/32/],
  ['[3fff::1]', /documentation range 3fff::\/20/],
  ['[2001:2::1]', /benchmarking range 2001:2::\/48/],
  ['[100::1]', /discard-only range 100::\/64/],
  ['[2001:10::1]', /deprecated ORCHID range/],
  ['[2001:20::1]', /ORCHIDv2 range/],
  ['[2001:1::1]', /IETF protocol assignments range 2001::\/23/],
  ['[5f00::1]', /segment routing SIDs range/],
  ['[4000::1]', /outside the global unicast range 2000::\/3/],
  ['[2606:4700:4700::1111]', true],
  ['[2620:4f:8000::1]', true],
];

/** Addresses as a resolver may answer them (AAAA and A records, a scoped address). */
const RESOLVED: [string, true | RegExp][] = [
  ['::ffff:127.0.0.1', /IPv4-mapped address .* carries 127\.0\.0\.1/],
  ['::127.0.0.1', /IPv4-compatible address .* carries 127\.0\.0\.1/],
  ['64:ff9b::7f00:1', /NAT64 address .* carries 127\.0\.0\.1/],
  ['2002:7f00:1::', /6to4 address .* carries 127\.0\.0\.1/],
  ['fe80::1%eth0', /link-local range fe80::\/10/],
  ['FEC0:0:0:0:0:0:0:1', /site-local/],
  ['127.1', /loopback/],
  ['not-an-address', /not an IP address/],
  ['2606:4700:4700::1111', true],
  ['8.8.8.8', true],
];

describe('OutboundPolicy', () => {
  const strict = new OutboundPolicy([]);

  it.each(URL_HOSTS)('judges the URL host %s by the special-purpose address registries', (host, verdict) => {
    const check = () => strict.checkUrl(`https://${host}/mcp`);
    if (verdict === true) expect(check).not.toThrow();
    else expect(check).toThrow(verdict);
  });

  it.each(RESOLVED)('judges the resolved address %s the same way', (address, verdict) => {
    const check = () => strict.checkAddress('host.example.com', address);
    if (verdict === true) expect(check).not.toThrow();
    else expect(check).toThrow(verdict);
  });

  it('names the host and the address it resolved to', () => {
    expect(() => strict.checkAddress('rebind.example.com', '::ffff:7f00:1')).toThrow(
      new OutboundBlockedError(
        'rebind.example.com resolves to ::ffff:7f00:1, an IPv4-mapped address (::ffff:0:0/96) that carries 127.0.0.1, an address in the loopback range 127.0.0.0/8, which tenant servers may not reach',
      ),
    );
  });

  it('refuses a URL whose IPv6 host has a zone, as the URL parser does', () => {
    expect(() => strict.checkUrl('https://[fe80::1%25eth0]/mcp')).toThrow(/not valid/);
  });

  it('lets an allowed IPv4 range cover the IPv6 forms that carry it, and nothing beside it', () => {
    const p = new OutboundPolicy(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    for (const ok of ['[::ffff:127.0.0.1]', '[64:ff9b:1::7f00:1]', '[2002:a00:1::1]', '[fd12::1]', '10.9.8.7', '[::10.1.1.1]']) {
      expect(() => p.checkUrl(`https://${ok}/`)).not.toThrow();
    }
    for (const no of ['127.0.0.2', '[::ffff:127.0.0.2]', '[fc00::1]', '[64:ff9b:1::808:808]', '[2002:c0a8:101::]']) {
      expect(() => p.checkUrl(`https://${no}/`)).toThrow(OutboundBlockedError);
    }
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', /plain http|link-local/],
    ['https://169.254.169.254/', /link-local/],
    ['https://10.0.0.1/', /private/],
    ['http://10.0.0.1/', /plain http|private/],
    ['https://[::1]/mcp', /loopback/],
    ['https://127.0.0.1:8443/', /loopback/],
    ['https://100.64.1.2/', /carrier-grade/],
    ['https://[::ffff:192.168.1.1]/', /private/],
    ['https://[::127.0.0.1]/', /loopback/],
    ['https://[fec0::1]/', /site-local/],
    ['https://[fd00:ec2::254]/', /unique local/],
    ['https://metadata.google.internal/', /metadata/],
    ['ftp://example.com/', /scheme/],
    ['https://user:pw@example.com/', /user name/],
    ['not a url', /not valid/],
  ])('refuses %s', async (url, why) => {
    await expect(strict.assertAllowed(url)).rejects.toThrow(why);
  });

  it('refuses a host name that resolves to a private address', async () => {
    // localhost resolves to loopback on every machine.
    await expect(strict.assertAllowed('https://localhost/mcp')).rejects.toThrow(/loopback/);
  });

  it('refuses a host whose lookup does not answer in time, without waiting for the resolver', async () => {
    const asked: string[] = [];
    const silent = new OutboundPolicy([], {
      lookupTimeoutMs: 50,
      lookup: (host) => {
        asked.push(host);
        return new Promise(() => undefined);
      },
    });
    const started = Date.now();
    await expect(silent.assertAllowed('https://mcp.example.com/mcp')).rejects.toThrow(
      new OutboundBlockedError('mcp.example.com did not resolve within 50 ms'),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(asked).toEqual(['mcp.example.com']);
  });

  it('checks what a lookup answers within the deadline, and names a failed lookup', async () => {
    const answers: Record<string, string> = { 'public.example.com': '93.184.215.14', 'inside.example.com': '10.9.8.7' };
    const p = new OutboundPolicy([], {
      lookupTimeoutMs: 1000,
      lookup: async (host) => {
        await new Promise((r) => setTimeout(r, 10));
        if (!answers[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        return [{ address: answers[host], family: 4 }];
      },
    });
    await expect(p.assertAllowed('https://public.example.com/mcp')).resolves.toBeInstanceOf(URL);
    await expect(p.assertAllowed('https://inside.example.com/mcp')).rejects.toThrow('inside.example.com resolves to 10.9.8.7, an address in the private-use range 10.0.0.0/8');
    await expect(p.assertAllowed('https://nowhere.example.com/mcp')).rejects.toThrow('nowhere.example.com does not resolve (ENOTFOUND)');
  });

  it('lets the operator allow hosts and ranges, including plain http to them', async () => {
    const p = new OutboundPolicy(['127.0.0.1', '10.1.0.0/16', 'localhost']);
    await expect(p.assertAllowed('http://127.0.0.1:9/mcp')).resolves.toBeInstanceOf(URL);
    await expect(p.assertAllowed('https://10.1.2.3/')).resolves.toBeInstanceOf(URL);
    await expect(p.assertAllowed('http://localhost:9/')).resolves.toBeInstanceOf(URL);
    await expect(p.assertAllowed('https://10.2.0.1/')).rejects.toThrow(/private/);
  });

  describe('fetch', () => {
    let redirector: Server;
    let port: number;
    beforeAll(async () => {
      redirector = createServer((req, res) => {
        if (req.url === '/to-metadata') {
          res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
          return res.end();
        }
        if (req.url === '/to-private') {
          res.writeHead(307, { location: 'https://10.0.0.1/mcp' });
          return res.end();
        }
        if (req.url === '/hop') {
          res.writeHead(302, { location: '/ok' });
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      });
      await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
      port = (redirector.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((r) => redirector.close(r)));

    it('follows an allowed redirect', async () => {
      const f = new OutboundPolicy(['127.0.0.1']).createFetch();
      const res = await f(`http://127.0.0.1:${port}/hop`);
      expect(await res.text()).toBe('ok');
    });

    it('sends no credentials to another origin across a redirect, and keeps them on the same origin', async () => {
      const seen: Record<string, string | undefined>[] = [];
      const other = createServer((req, res) => {
        seen.push({ url: req.url, authorization: req.headers.authorization, key: req.headers['x-api-key'] as string | undefined });
        res.end('ok');
      });
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
      const otherPort = (other.address() as AddressInfo).port;
      const hop = createServer((req, res) => {
        res.writeHead(307, { location: `http://localhost:${otherPort}/cross` });
        res.end();
      });
      await new Promise<void>((r) => hop.listen(0, '127.0.0.1', r));
      const hopPort = (hop.address() as AddressInfo).port;
      try {
        const f = new OutboundPolicy(['127.0.0.1', 'localhost']).createFetch();
        const headers = { authorization: 'Bearer secret-token', 'x-api-key': 'secret-key', accept: 'application/json' };
        await f(`http://127.0.0.1:${hopPort}/cross`, { method: 'POST', headers, body: '{}' });
        expect(seen.pop()).toEqual({ url: '/cross', authorization: undefined, key: undefined });
        // Without a redirect the credentials reach the server they were given for.
        await f(`http://127.0.0.1:${otherPort}/direct`, { headers });
        expect(seen.pop()).toEqual({ url: '/direct', authorization: 'Bearer secret-token', key: 'secret-key' });
      } finally {
        await new Promise((r) => hop.close(r));
        await new Promise((r) => other.close(r));
      }
    });

    it('refuses a redirect to a metadata or private address', async () => {
      const f = new OutboundPolicy(['127.0.0.1']).createFetch();
      await expect(f(`http://127.0.0.1:${port}/to-metadata`)).rejects.toThrow(OutboundBlockedError);
      await expect(f(`http://127.0.0.1:${port}/to-private`)).rejects.toThrow(/private/);
    });

    it('refuses at connect time when the name resolves to a blocked address', async () => {
      // Allowed for http by name, but its address is loopback and not allowed: the connect-time lookup refuses.
      const f = new OutboundPolicy(['*.localhost']).createFetch();
      await expect(f(`http://a.localhost:${port}/ok`)).rejects.toThrow();
      const g = new OutboundPolicy([]).createFetch();
      await expect(g(`https://localhost:${port}/ok`)).rejects.toThrow(/loopback/);
    });
  });
});
