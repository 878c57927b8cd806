/** A real published server.json (io.github.domdomegg/time-mcp-pypi, from the official registry's seed data). */
export const PUBLISHED_SERVER_JSON = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.domdomegg/time-mcp-pypi',
  description: 'Get the current UTC time in RFC 3339 format.',
  repository: { url: 'https://github.com/domdomegg/time-mcp-pypi.git', source: 'github' },
  version: '1.0.6',
  packages: [{ registryType: 'pypi', identifier: 'time-mcp-pypi', version: '1.0.6', runtimeHint: 'python', transport: { type: 'stdio' } }],
};

/** The schema's own remote example: a URL template and a secret header. */
export const REMOTE_SERVER_JSON = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.user/remote-weather',
  description: 'Remote MCP server reachable over streamable HTTP.',
  version: '2.1.0',
  title: 'Remote Weather',
  remotes: [
    {
      type: 'streamable-http',
      url: 'https://{host}/mcp',
      headers: [{ name: 'Authorization', isSecret: true, isRequired: true }],
      variables: { host: { description: 'API host', default: 'api.example.com' } },
    },
  ],
};

export const CLAUDE_DESKTOP_CONFIG = {
  mcpServers: {
    memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory@2026.8.31'] },
    github: { url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer <token>' } },
  },
};

export const CATALOG_ENTRY_EXAMPLE = {
  id: '0193a5b2-7c1e-7d3a-9f40-5e6d7c8b9a20',
  name: PUBLISHED_SERVER_JSON.name,
  version: PUBLISHED_SERVER_JSON.version,
  title: null,
  description: PUBLISHED_SERVER_JSON.description,
  isLatest: true,
  status: 'active',
  statusMessage: null,
  tenantId: null,
  sourceId: null,
  publishedAt: '2026-12-01T10:00:00.000Z',
  updatedAt: '2026-12-01T10:00:00.000Z',
  server: PUBLISHED_SERVER_JSON,
};

export const IMPORT_RESULT_EXAMPLE = {
  format: 'server.json',
  added: 1,
  updated: 0,
  unchanged: 0,
  items: [{ at: '(root)', name: PUBLISHED_SERVER_JSON.name, version: PUBLISHED_SERVER_JSON.version, outcome: 'added', withheld: [] }],
};
