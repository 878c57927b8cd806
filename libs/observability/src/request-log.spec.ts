import { ConsoleLogger, Logger } from '@nestjs/common';
import { createServer, request, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { PinoNestLogger, requestLogging } from './request-log';

function sink() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, logger: createLogger('debug', 'test', stream) };
}

async function serve(handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const { lines, logger } = sink();
  const middleware = requestLogging(logger, { quietPaths: new Set(['/quiet']) });
  const server = createServer((req, res) => middleware(req, res, () => handler(req, res)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; id: string | undefined }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, id: res.headers['x-request-id'] as string | undefined }));
      })
        .on('error', reject)
        .end();
    });
  return { lines, logger, server, get };
}

const close = (s: Server) => new Promise((r) => s.close(r));
const settle = () => new Promise((r) => setTimeout(r, 20));

describe('requestLogging', () => {
  it('gives each request an id, echoes it, and puts it on every line written while the request is handled', async () => {
    let nestLogger!: PinoNestLogger;
    const t = await serve(async (_req, res) => {
      await new Promise((r) => setTimeout(r, 5));
      nestLogger.log({ serverId: 's1' }, 'looked up', 'ServerService');
      nestLogger.warn({ credentials: { bearerToken: 'never-logged' } }, 'with a secret', 'ServerService');
      res.end('ok');
    });
    nestLogger = new PinoNestLogger(t.logger);
    const own = await t.get('/api/v1/servers', { 'x-request-id': 'trace-abc-123' });
    const made = await t.get('/api/v1/servers', { 'x-request-id': 'not a valid id!' });
    await settle();
    await close(t.server);
    expect(own.id).toBe('trace-abc-123');
    expect(made.id).toMatch(/^[0-9a-f-]{36}$/);
    const looked = t.lines.filter((l) => l.msg === 'looked up');
    expect(looked.map((l) => (l.req as { id: string }).id)).toEqual(['trace-abc-123', made.id]);
    expect(looked[0]).toMatchObject({ context: 'ServerService', serverId: 's1', level: 'info' });
    // Lines written by the application are still redacted (the completion line skips the walk: it holds no field to redact).
    expect(t.lines.filter((l) => l.msg === 'with a secret').map((l) => l.credentials)).toEqual(['[redacted]', '[redacted]']);
    expect(JSON.stringify(t.lines)).not.toContain('never-logged');
    const completed = t.lines.filter((l) => l.msg === 'request completed');
    expect(completed).toHaveLength(2);
    expect(completed[0]).toMatchObject({ req: { id: 'trace-abc-123', method: 'GET', url: '/api/v1/servers' }, res: { statusCode: 200 } });
    expect(typeof completed[0].responseTime).toBe('number');
  });

  it('writes no line for a quiet path, an error line for a 5xx, and says when the client left first', async () => {
    const t = await serve((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 200);
      res.statusCode = req.url === '/boom' ? 503 : 200;
      res.end();
    });
    await t.get('/quiet');
    await t.get('/boom');
    await new Promise<void>((resolve) => {
      const r = request({ host: '127.0.0.1', port: (t.server.address() as AddressInfo).port, path: '/slow' });
      r.on('error', () => resolve());
      r.end();
      setTimeout(() => {
        r.destroy();
        resolve();
      }, 30);
    });
    await new Promise((r) => setTimeout(r, 300));
    await close(t.server);
    expect(t.lines.find((l) => (l.req as { url?: string } | undefined)?.url === '/quiet')).toBeUndefined();
    expect(t.lines.find((l) => (l.req as { url: string } | undefined)?.url === '/boom')).toMatchObject({ level: 'error', res: { statusCode: 503 } });
    expect(t.lines.find((l) => (l.req as { url: string } | undefined)?.url === '/slow')).toMatchObject({
      msg: 'request closed before its answer was sent',
    });
  });

  it('writes nothing about a request outside one, nor on lines of work a request started that outlives it', async () => {
    let later: Promise<void> | undefined;
    const t = await serve((_req, res) => {
      t.logger.info('during');
      later = new Promise((resolve) =>
        setTimeout(() => {
          t.logger.info('after the answer');
          resolve();
        }, 30),
      );
      res.end('ok');
    });
    t.logger.info('starting');
    await t.get('/work');
    await later;
    await close(t.server);
    expect(t.lines.find((l) => l.msg === 'starting')!.req).toBeUndefined();
    expect(t.lines.find((l) => l.msg === 'during')!.req).toMatchObject({ url: '/work' });
    expect(t.lines.find((l) => l.msg === 'after the answer')!.req).toBeUndefined();
  });
});

describe('PinoNestLogger', () => {
  afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

  it("receives Nest's own loggers: new Logger(context).log(...) is a line with that context", () => {
    const { lines, logger } = sink();
    Logger.overrideLogger(new PinoNestLogger(logger));
    new Logger('ServerService').log('registered');
    new Logger('ServerService').warn({ serverId: 's1' }, 'with fields');
    new Logger('ProblemFilter').error(new Error('boom'));
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'registered', context: 'ServerService' });
    expect(lines[1]).toMatchObject({ level: 'warn', msg: 'with fields', context: 'ServerService', serverId: 's1' });
    expect(lines[2]).toMatchObject({ level: 'error', msg: 'boom', context: 'ProblemFilter', err: { message: 'boom' } });
  });

  it('writes Nest calls as pino lines: context, merged objects, errors, and the exception handler contract', () => {
    const { lines, logger } = sink();
    const nest = new PinoNestLogger(logger);
    nest.log('plain', 'Ctx');
    nest.warn({ a: 1 }, 'with object', 'Ctx');
    nest.error(new Error('bad thing'), 'Ctx');
    nest.error('handler failed', 'Error: handler failed\n    at somewhere (file.ts:1:1)', 'ExceptionsHandler');
    nest.debug('detail', 'Ctx');
    nest.verbose('trace level is below debug');
    expect(lines[0]).toMatchObject({ level: 'info', msg: 'plain', context: 'Ctx' });
    expect(lines[1]).toMatchObject({ level: 'warn', msg: 'with object', context: 'Ctx', a: 1 });
    expect(lines[2]).toMatchObject({ level: 'error', msg: 'bad thing', context: 'Ctx', err: { message: 'bad thing' } });
    expect(lines[3]).toMatchObject({ level: 'error', msg: 'handler failed', context: 'ExceptionsHandler' });
    expect((lines[3].err as { stack: string }).stack).toContain('at somewhere');
    expect(lines[4]).toMatchObject({ level: 'debug', msg: 'detail' });
    expect(lines).toHaveLength(5);
  });
});
