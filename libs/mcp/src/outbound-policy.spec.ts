import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { OutboundBlockedError, OutboundPolicy } from './outbound-policy';

describe('OutboundPolicy', () => {
  const strict = new OutboundPolicy([]);

  it.each([
    ['http://169.254.169.254/latest/meta-data/', /plain http|link-local/],
    ['https://169.254.169.254/', /link-local/],
    ['https://10.0.0.1/', /private/],
    ['http://10.0.0.1/', /plain http|private/],
    ['https://[::1]/mcp', /loopback/],
    ['https://127.0.0.1:8443/', /loopback/],
    ['https://100.64.1.2/', /carrier-grade/],
    ['https://[::ffff:192.168.1.1]/', /private/],
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
    await expect(p.assertAllowed('https://inside.example.com/mcp')).rejects.toThrow('inside.example.com resolves to 10.9.8.7, an address in a private range');
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
