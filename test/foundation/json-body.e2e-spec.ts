import { currentRequest } from '@app/observability';
import { Controller, HttpCode, Module, Post, Req } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import * as http from 'node:http';
import * as net from 'node:net';
import { gzipSync } from 'node:zlib';
import { jsonBodyReader } from '../../apps/api/src/http/json-body-reader';
import { useTestApp } from '../support/app';

/** Answers with the body as the application parsed it and the request the handler ran for. */
@Controller('test-echo')
class EchoController {
  @Post()
  @HttpCode(200)
  echo(@Req() req: Request): unknown {
    return { body: req.body === undefined ? '(none)' : req.body, requestId: currentRequest()?.id ?? null };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

interface Answer {
  status: number;
  body: any;
}

/** A POST with exactly these headers and bytes: with Content-Length, or chunked (no length) when `chunked`. */
function post(port: number, path: string, body: Buffer | string, headers: Record<string, string>, chunked = false): Promise<Answer> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: chunked ? headers : { ...headers, 'content-length': String(bytes.length) } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    if (chunked) {
      // Two writes: Node sends them as chunks of a chunked body.
      req.write(bytes.subarray(0, 1));
      req.end(bytes.subarray(1));
    } else {
      req.end(bytes);
    }
  });
}

/** The bodies whose handling the reader must share with body-parser: fine, odd, and refused. */
const BODIES: (string | Buffer)[] = [
  '{"serverId":"x"}',
  '{"a":[1,2,{"b":null}],"c":"\\u00e9\\ud83d\\ude00","d":1e3}',
  '[1,2,3]',
  ' \t\r\n {"spaced":true}',
  '\ufeff{"bom":true}',
  '{"name":"' + 'é'.repeat(2000) + '"}',
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"a":"<invalid UTF-8>"}
  '"a string"',
  'null',
  '42',
  ' ',
  '{"unterminated":',
  '{bad json}',
  '{"a":1}garbage',
  '\ufeff\ufeff{}',
];

describe('JSON request bodies', () => {
  const t = useTestApp({ worker: false, modules: [EchoModule] });
  let port: number;

  beforeAll(async () => {
    port = Number(new URL(t.baseUrl).port);
  });

  it('are parsed and refused exactly as body-parser does, with the same answers', async () => {
    for (const body of BODIES) {
      const read = await post(port, '/test-echo', body, { 'content-type': 'application/json' });
      // Chunked (no Content-Length): left to body-parser.
      const general = await post(port, '/test-echo', body, { 'content-type': 'application/json' }, true);
      const label = JSON.stringify(body.toString());
      expect({ label, status: read.status }).toEqual({ label, status: general.status });
      if (read.status === 200) {
        expect(read.body.body).toEqual(general.body.body);
      } else {
        expect(read.status).toBe(400);
        expect(read.body).toMatchObject({ status: 400, detail: 'the request body is not valid JSON' });
        expect(read.body.detail).toBe(general.body.detail);
      }
    }
  });

  it('reads every JSON media type and charset spelling, and leaves the others to body-parser', async () => {
    const body = '{"x":1}';
    for (const type of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'application/problem+json', 'application/json; foo=bar']) {
      const res = await post(port, '/test-echo', body, { 'content-type': type });
      expect({ type, status: res.status, body: res.body.body }).toEqual({ type, status: 200, body: { x: 1 } });
    }
    // Not JSON: nothing parses it.
    expect((await post(port, '/test-echo', body, { 'content-type': 'text/plain' })).body.body).toBe('(none)');
    // A charset JSON may not have.
    const latin = await post(port, '/test-echo', body, { 'content-type': 'application/json; charset=latin1' });
    expect(latin).toMatchObject({ status: 415, body: { detail: 'the request body encoding is not supported' } });
  });

  it('leaves compressed bodies to body-parser, which inflates them', async () => {
    const res = await post(port, '/test-echo', gzipSync('{"zipped":true}'), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res).toMatchObject({ status: 200, body: { body: { zipped: true } } });
  });

  it('refuses a body over the limit with 413, with or without a declared length', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    expect(await post(port, '/test-echo', big, { 'content-type': 'application/json' })).toMatchObject({ status: 413, body: { detail: 'the request body is too large' } });
    expect(await post(port, '/test-echo', big, { 'content-type': 'application/json' }, true)).toMatchObject({ status: 413 });
  });

  it('runs the handler in the request it read the body for (its log lines carry its id)', async () => {
    const res = await post(port, '/test-echo', '{"a":1}', { 'content-type': 'application/json', 'x-request-id': 'body-read-ctx-1' });
    expect(res).toMatchObject({ status: 200, body: { body: { a: 1 }, requestId: 'body-read-ctx-1' } });
  });

  it('reads the bodies of requests pipelined on one connection, each into its own request', async () => {
    const one = '{"n":1}';
    const two = JSON.stringify({ n: 2, pad: 'p'.repeat(5000) });
    const request = (body: string, id: string) =>
      `POST /test-echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Request-Id: ${id}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const text = await new Promise<string>((resolve, reject) => {
      let got = '';
      const socket = net.connect(port, '127.0.0.1', () => socket.end(request(one, 'pipe-1') + request(two, 'pipe-2')));
      socket.on('data', (c: Buffer) => (got += c.toString('utf8')));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    const bodies = text
      .split('HTTP/1.1 ')
      .filter(Boolean)
      .map((answer) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)));
    expect(bodies).toEqual([
      { body: { n: 1 }, requestId: 'pipe-1' },
      { body: { n: 2, pad: 'p'.repeat(5000) }, requestId: 'pipe-2' },
    ]);
  });

  it('survives a client that declares a body and abandons it, and answers the next request', async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('POST /test-echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"half":');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
      socket.on('error', reject);
    });
    expect(await post(port, '/test-echo', '{"after":true}', { 'content-type': 'application/json' })).toMatchObject({ status: 200, body: { body: { after: true } } });
  });
});

describe('jsonBodyReader', () => {
  /** A bare HTTP server: the reader, then a handler that tells whether the reader set a body. */
  async function withReader(fn: (port: number) => Promise<void>): Promise<void> {
    const reader = jsonBodyReader(1024);
    const server = http.createServer((req, res) => {
      const r = req as unknown as Request;
      reader(r, res as unknown as Response, ((err?: unknown) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(err ? { error: (err as { type?: string }).type, status: (err as { status?: number }).status } : { read: r.body !== undefined, body: r.body ?? null }));
      }) as NextFunction);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await fn((server.address() as net.AddressInfo).port);
    } finally {
      await new Promise((r) => server.close(r));
    }
  }

  it('reads a UTF-8 JSON body with a declared length within the limit, and only that', () =>
    withReader(async (port) => {
      expect((await post(port, '/', '{"a":"é"}', { 'content-type': 'application/json' })).body).toEqual({ read: true, body: { a: 'é' } });
      // Left for body-parser: chunked, compressed, another media type or parameter, over the limit.
      for (const [body, headers, chunked] of [
        ['{"a":1}', { 'content-type': 'application/json' }, true],
        ['{"a":1}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, false],
        ['{"a":1}', { 'content-type': 'application/vnd.api+json' }, false],
        ['{"a":1}', { 'content-type': 'application/json; charset=utf-16' }, false],
        ['{"a":1}', { 'content-type': 'text/plain' }, false],
        [JSON.stringify({ a: 'x'.repeat(2000) }), { 'content-type': 'application/json' }, false],
      ] as [string, Record<string, string>, boolean][]) {
        expect((await post(port, '/', body, headers, chunked)).body).toEqual({ read: false, body: null });
      }
    }));

  it('refuses what does not parse as body-parser does: 400, entity.parse.failed', () =>
    withReader(async (port) => {
      for (const body of ['"str"', '{"a":', 'true', '\u00a0{}']) {
        expect((await post(port, '/', body, { 'content-type': 'application/json' })).body).toEqual({ error: 'entity.parse.failed', status: 400 });
      }
    }));
});
