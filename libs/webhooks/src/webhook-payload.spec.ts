import { MAX_PAYLOAD_BYTES, webhookPayload } from './webhook-payload';

const at = new Date('2026-12-01T09:45:00.402Z');

describe('webhookPayload', () => {
  it('is the Standard Webhooks shape {type, timestamp, data}, the same bytes every time', () => {
    const event = { type: 'server.status_changed', at, data: { serverId: 's1', name: 'github', status: 'MCP_SERVER_CONNECTION_STATUS_ERROR', reason: 'refused' } };
    const body = webhookPayload(event);
    expect(JSON.parse(body)).toEqual({ type: 'server.status_changed', timestamp: '2026-12-01T09:45:00.402Z', data: event.data });
    expect(webhookPayload(event)).toBe(body);
  });

  it('bounds what a server may have put in the data: one line per string, 1000 characters, 100 items, 4 levels', () => {
    const body = webhookPayload({
      type: 'server.tools_changed',
      at,
      data: { reason: 'a\u0000b\u001bc\nd' + 'x'.repeat(5000), added: Array.from({ length: 500 }, (_, i) => `t${i}`), deep: { a: { b: { c: { d: 1 } } } } },
    });
    const { data } = JSON.parse(body);
    expect(data.reason.startsWith('a b c d')).toBe(true);
    expect(data.reason).toHaveLength(1001);
    expect(data.added).toHaveLength(100);
    expect(data.deep).toEqual({ a: { b: { c: null } } });
  });

  it('keeps only the server identity, marked truncated, when the whole would pass 16 KiB', () => {
    const data = { serverId: 's1', tenantId: null, name: 'big', status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', many: Array.from({ length: 100 }, () => 'y'.repeat(1000)) };
    const body = webhookPayload({ type: 'server.tools_changed', at, data });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(JSON.parse(body).data).toEqual({ serverId: 's1', tenantId: null, name: 'big', status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', truncated: true });
  });
});
