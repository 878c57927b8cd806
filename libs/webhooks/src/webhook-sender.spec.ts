import { OutboundPolicy, redactor } from '@app/mcp';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { MAX_RESPONSE_BYTES, WebhookSender } from './webhook-sender';

/** A receiver on loopback that answers every delivery with `status` and `body`. */
async function receiver(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain' }).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

describe('WebhookSender', () => {
  const secret = 'whsec_c2VjcmV0LWZvci10aGUtc2VuZGVyLXNwZWM';
  const sender = new WebhookSender(new OutboundPolicy(['127.0.0.1']), 5000);
  const servers: Server[] = [];
  afterAll(async () => {
    await sender.close();
    for (const s of servers) await new Promise((r) => s.close(r));
  });

  async function send(status: number, body: string) {
    const r = await receiver(status, body);
    servers.push(r.server);
    return sender.send(r.url, { 'content-type': 'application/json' }, '{}', redactor([secret]));
  }

  it('quotes a failed answer on one line, with the secret it echoed removed', async () => {
    const result = await send(500, `bad signature\n  for ${secret}`);
    expect(result).toMatchObject({ ok: false, statusCode: 500, permanent: false });
    expect(result.error).toBe('the receiver answered 500: bad signature for [redacted]');
  });

  it('removes the part of an echoed secret that the read bound cut, which white space would bring into the quote', async () => {
    // The secret starts 12 bytes before the bound: only its first 12 characters are read.
    const result = await send(400, ' '.repeat(MAX_RESPONSE_BYTES - 12) + secret + ' and more');
    expect(result.error).toBe('the receiver answered 400: [redacted]');
    expect(result.error).not.toContain(secret.slice(0, 6));
  });

  it('does not quote a successful answer', async () => {
    const result = await send(204, '');
    expect(result).toMatchObject({ ok: true, statusCode: 204, error: null });
  });
});
