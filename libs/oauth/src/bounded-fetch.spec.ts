import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedFetch, OAUTH_MAX_RESPONSE_BYTES } from './bounded-fetch';

/** The OAuth flow's fetch against a real loopback server: answers past the byte bound are refused, streamed or declared. */
describe('boundedFetch', () => {
  const big = Buffer.alloc(OAUTH_MAX_RESPONSE_BYTES + 1, 0x61);
  const server = createServer((req, res) => {
    if (req.url === '/declared') return res.writeHead(200, { 'content-length': String(big.length) }).end(big);
    if (req.url === '/streamed') {
      res.writeHead(200);
      res.write(big.subarray(0, 200_000));
      return res.end(big.subarray(200_000));
    }
    if (req.url === '/small') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (req.url === '/slow-body') {
      res.writeHead(200);
      res.write('{');
      return; // never ends
    }
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const bounded = () => boundedFetch(globalThis.fetch, 300);

  it('passes a small answer through as a global Response', async () => {
    const res = await bounded()(`${base}/small`);
    expect(res.constructor).toBe(Response);
    expect(await res.json()).toEqual({ ok: true });
  });
  it('refuses an answer that declares more than the bound', async () => {
    await expect(bounded()(`${base}/declared`)).rejects.toThrow(`the answer of ${base}/declared is larger than 256 KiB: refused`);
  });
  it('cuts an answer that streams past the bound', async () => {
    const res = await bounded()(`${base}/streamed`);
    await expect(res.text()).rejects.toThrow('larger than 256 KiB');
  });
  it('ends a body that never finishes within the timeout', async () => {
    const res = await bounded()(`${base}/slow-body`);
    await expect(res.text()).rejects.toThrow(`${base}/slow-body did not answer within 300 ms`);
  });
});
