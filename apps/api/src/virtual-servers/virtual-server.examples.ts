import { EXAMPLE_IDS, PAGE_TOKEN_EXAMPLE } from '../common/api-examples';

/** The examples /docs shows for virtual servers: requests the API accepts as they are, answers as it gives them. */
export const EXAMPLE_VIRTUAL_ID = '0193a5b5-1d2e-7f30-8a4b-5c6d7e8f9a0b';

export const CREATE_VIRTUAL_SERVER_EXAMPLES = {
  servers: {
    summary: 'Every tool of two servers',
    value: { name: 'support-desk', description: 'Tickets and the knowledge base, for the support team', servers: [EXAMPLE_IDS.server, EXAMPLE_IDS.builtIn] },
  },
  tools: {
    summary: 'Chosen tools of some servers',
    value: {
      name: 'release-manager',
      tools: [
        { serverId: EXAMPLE_IDS.server, toolName: 'create_issue' },
        { serverId: EXAMPLE_IDS.builtIn, toolName: 'search' },
      ],
    },
  },
};

export const UPDATE_VIRTUAL_SERVER_EXAMPLES = {
  rename: { summary: 'Rename it', value: { name: 'support' } },
  members: { summary: 'Replace its members (servers and tools given together replace the whole selection)', value: { servers: [EXAMPLE_IDS.server] } },
};

export const VIRTUAL_SERVER_EXAMPLE = {
  id: EXAMPLE_VIRTUAL_ID,
  name: 'support-desk',
  description: 'Tickets and the knowledge base, for the support team',
  tenantId: EXAMPLE_IDS.tenant,
  servers: [EXAMPLE_IDS.server, EXAMPLE_IDS.builtIn],
  tools: [],
  endpoint: `/mcp/v/${EXAMPLE_VIRTUAL_ID}`,
  createdAt: '2026-12-01T09:30:00.000Z',
  updatedAt: '2026-12-01T09:30:00.000Z',
};

export const VIRTUAL_SERVER_PAGE_EXAMPLE = { virtualServers: [VIRTUAL_SERVER_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE };

export const VIRTUAL_TOOLS_EXAMPLE = {
  tools: [
    { name: 'github__create_issue', serverId: EXAMPLE_IDS.server, toolName: 'create_issue' },
    { name: 'docs__search', serverId: EXAMPLE_IDS.builtIn, toolName: 'search' },
  ],
};
