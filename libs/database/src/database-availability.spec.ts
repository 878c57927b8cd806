import { Writable } from 'node:stream';
import { createLogger } from '@app/observability';
import { DatabaseAvailability, isDatabaseUnavailable } from './database-availability';

describe('telling a database outage from other errors', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['no connection within the pool bound', new Error('timeout exceeded when trying to connect')],
    ['the server shutting down (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a connection exception (08006)', Object.assign(new Error('x'), { code: '08006' })],
    ['Prisma: cannot reach the server (P1001)', Object.assign(new Error('x'), { code: 'P1001' })],
    ['an adapter error wrapping a refused connection', Object.assign(new Error('x'), { cause: { code: 'ECONNREFUSED' } })],
  ])('%s is an outage', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key value'), { code: '23505' })],
    ['Prisma: record not found (P2025)', Object.assign(new Error('x'), { code: 'P2025' })],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
  ])('%s is not', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('logs an outage once as it begins and once as it ends, however many failures it sees', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (c, _e, cb) => (lines.push(c.toString()), cb()) });
    let answers = false;
    const availability = new DatabaseAvailability(async () => {
      if (!answers) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    }, createLogger('info', 'test', sink));
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 20; i++) expect(availability.failed(refused, true)).toBe(true);
    expect(availability.failed(new Error('a bug'))).toBe(false);
    expect(availability.down).toBe(true);
    answers = true;
    availability.succeeded();
    expect(availability.down).toBe(false);
    availability.stop();
    const messages = lines.map((l) => JSON.parse(l) as { msg: string; refused?: number });
    expect(messages.map((m) => m.msg)).toEqual([
      expect.stringContaining('PostgreSQL does not answer'),
      'PostgreSQL answers again',
    ]);
    expect(messages[1].refused).toBe(20);
  });
});
