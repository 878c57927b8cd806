import { requiresKey } from './api-key.guard';

describe('requiresKey', () => {
  it('covers the API and the MCP endpoint however the path is spelled', () => {
    for (const p of ['/api/v1/servers', '/API/V1/servers', '//api//v1/tenants', '/api%2Fv1/tenants', '/api/v1', '/mcp', '/MCP', '/mcp/x', '/api/v1/servers?x=1', '/v0.1/servers', '/V0.1/servers/a%2Fb/versions']) {
      expect(requiresKey(p)).toBe(true);
    }
  });

  it('leaves the probes, docs and metrics open', () => {
    for (const p of ['/health/live', '/api/v1/health/ready', '/docs', '/docs-json', '/metrics', '/no/such/route', '/mcpx']) {
      expect(requiresKey(p)).toBe(false);
    }
  });
});
