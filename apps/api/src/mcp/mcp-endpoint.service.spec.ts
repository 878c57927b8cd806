import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { Request } from 'express';
import { isLegacyPost } from './mcp-endpoint.service';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'spec', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const cases: { what: string; headers: Record<string, string>; body: unknown }[] = [
  { what: 'initialize', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } } },
  { what: 'a 2025 request', headers: { 'mcp-protocol-version': '2025-06-18' }, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } },
  { what: 'a 2025 request with a progress token', headers: {}, body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 1 } } } },
  { what: 'a notification', headers: {}, body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  { what: 'a posted response', headers: {}, body: { jsonrpc: '2.0', id: 3, result: {} } },
  { what: 'a 2025 batch', headers: {}, body: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'ping' }] },
  { what: 'server/discover', headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }, body: { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENVELOPE } } },
  { what: 'a 2026 request without its header', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } } },
  { what: 'a modern header without the envelope', headers: { 'mcp-protocol-version': '2026-07-28' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
  { what: 'a batch with a modern element', headers: {}, body: [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }] },
  { what: 'an envelope naming an unknown revision', headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2031-01-01' } } } },
];

describe('the era of an MCP POST', () => {
  it.each(cases)('is decided as the 2.x SDK decides it: $what', async ({ headers, body }) => {
    const sdk = await isLegacyRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', headers }), body);
    expect(isLegacyPost({ headers, body } as unknown as Request)).toBe(sdk);
  });

  it('takes a malformed _meta for what it is (no envelope), without throwing', () => {
    expect(isLegacyPost({ headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'text' } } } as unknown as Request)).toBe(true);
    expect(isLegacyPost({ headers: {}, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: null } } as unknown as Request)).toBe(true);
  });
});
