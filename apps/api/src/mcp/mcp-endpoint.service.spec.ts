import type { McpServerDefinition } from '@app/mcp-server';
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

describe("the 2026-07-28 handler's listen streams", () => {
  it('are bounded by MAX_CHANGE_STREAMS, the bound of every change stream of the replica', async () => {
    // A bound of 2 for this test: the handler refuses the third listen only if it takes the bound from the constant.
    let endpoint!: import('./mcp-endpoint.service').McpEndpoint;
    jest.isolateModules(() => {
      jest.doMock('./mcp-change-streams.service', () => ({ ...jest.requireActual('./mcp-change-streams.service'), MAX_CHANGE_STREAMS: 2 }));
      const { McpEndpoint } = require('./mcp-endpoint.service') as typeof import('./mcp-endpoint.service');
      const { McpChangeStreams } = require('./mcp-change-streams.service') as typeof import('./mcp-change-streams.service');
      const catalog = { onServerChanged: () => undefined } as unknown as import('../llm-tools/tool-catalog.service').ToolCatalogService;
      endpoint = new McpEndpoint({} as import('@app/config').AppConfig, new McpChangeStreams(catalog));
    });
    const definition: McpServerDefinition = { info: { name: 'spec', version: '1' }, tools: { list: async () => [], call: async () => ({ content: [] }) } };
    const abort = new AbortController();
    const listen = async (id: number) => {
      const body = { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } };
      const request = new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        signal: abort.signal,
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      });
      const response = await endpoint['modern'].fetch(request, { authInfo: { token: '', clientId: 'spec', scopes: [], extra: { definition } }, parsedBody: body });
      const reader = response.body!.getReader();
      const { value } = await reader.read();
      return new TextDecoder().decode(value);
    };
    try {
      const first = [await listen(1), await listen(2)];
      for (const frame of first) expect(frame).not.toContain('Subscription limit reached');
      expect(await listen(3)).toContain('Subscription limit reached');
    } finally {
      abort.abort();
      await endpoint.onModuleDestroy();
    }
  });
});
