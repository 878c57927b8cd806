import { EXAMPLE_IDS } from '../common/api-examples';

export const WEBHOOK_ID_EXAMPLE = '0193a5b5-1d2e-7f30-8a41-b2c3d4e5f607';
const DELIVERY_ID = '0193a5b6-3e4f-7a51-9b62-c3d4e5f60718';
const EVENT_ID = '5f0c3a8e-2b1d-4c7e-9a6f-0e1d2c3b4a59';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2kY1o+SxZqE=';

export const WEBHOOK_EXAMPLE = {
  id: WEBHOOK_ID_EXAMPLE,
  tenantId: EXAMPLE_IDS.tenant,
  url: 'https://hooks.example.com/mcp-registry',
  description: 'Page the on-call engineer',
  events: ['server.status_changed', 'server.tools_changed'],
  serverIds: [],
  enabled: true,
  disabledReason: null,
  disabledAt: null,
  consecutiveFailures: 0,
  failingSince: null,
  lastSuccessAt: '2026-12-01T09:41:07.118Z',
  lastFailureAt: null,
  createdAt: '2026-12-01T09:30:00.000Z',
  updatedAt: '2026-12-01T09:30:00.000Z',
};

export const CREATED_WEBHOOK_EXAMPLE = { ...WEBHOOK_EXAMPLE, lastSuccessAt: null, secret: SECRET };

export const DISABLED_WEBHOOK_EXAMPLE = {
  ...WEBHOOK_EXAMPLE,
  enabled: false,
  disabledAt: '2026-12-02T10:02:11.000Z',
  disabledReason: 'disabled after 20 failed delivery attempts in a row since 2026-12-01T09:45:00Z; the last: the receiver answered 503: Service Unavailable',
  consecutiveFailures: 20,
  failingSince: '2026-12-01T09:45:00.000Z',
  lastFailureAt: '2026-12-02T10:02:11.000Z',
};

export const CREATE_WEBHOOK_EXAMPLES = {
  tenant: {
    summary: "A tenant's webhook: its own servers' status and tool changes",
    value: { url: 'https://hooks.example.com/mcp-registry', events: ['server.status_changed', 'server.tools_changed'], description: 'Page the on-call engineer' },
  },
  filtered: {
    summary: 'Only two servers, every event type',
    value: {
      url: 'https://hooks.example.com/mcp-registry',
      events: ['server.status_changed', 'server.tools_changed', 'server.tool_change_pending', 'server.authorization_required'],
      serverIds: [EXAMPLE_IDS.server, EXAMPLE_IDS.builtIn],
    },
  },
};

export const UPDATE_WEBHOOK_EXAMPLES = {
  enable: { summary: 'Re-enable a webhook disabled for failing (its failures are forgotten)', value: { enabled: true } },
  move: { summary: 'A new receiver and events', value: { url: 'https://hooks.example.com/v2/mcp-registry', events: ['server.status_changed'] } },
};

export const SECRET_EXAMPLE = { id: WEBHOOK_ID_EXAMPLE, secret: SECRET };

export const DELIVERY_PAGE_EXAMPLE = {
  deliveries: [
    {
      id: DELIVERY_ID,
      eventId: EVENT_ID,
      type: 'server.status_changed',
      serverId: EXAMPLE_IDS.server,
      status: 'pending',
      attemptCount: 2,
      nextAttemptAt: '2026-12-01T09:45:40.000Z',
      lastStatusCode: 503,
      lastError: 'the receiver answered 503: Service Unavailable',
      deliveredAt: null,
      createdAt: '2026-12-01T09:45:00.000Z',
      attempts: [
        { attempt: 1, at: '2026-12-01T09:45:00.410Z', durationMs: 12, statusCode: null, error: 'the receiver refused the connection (ECONNREFUSED)' },
        { attempt: 2, at: '2026-12-01T09:45:10.431Z', durationMs: 48, statusCode: 503, error: 'the receiver answered 503: Service Unavailable' },
      ],
    },
  ],
};

/** A delivery's body as the receiver gets it (and verifies with standardwebhooks). */
export const EVENT_PAYLOAD_EXAMPLE = {
  type: 'server.status_changed',
  timestamp: '2026-12-01T09:45:00.402Z',
  data: {
    serverId: EXAMPLE_IDS.server,
    tenantId: EXAMPLE_IDS.tenant,
    name: 'github',
    status: 'MCP_SERVER_CONNECTION_STATUS_ERROR',
    previousStatus: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
    reason: 'the server refused the connection (ECONNREFUSED)',
  },
};
