import { randomUUID } from 'node:crypto';

/** What happened to a server, as webhooks deliver it. */
export type ServerEventType =
  | 'server.status_changed'
  | 'server.tools_changed'
  | 'server.tool_change_pending'
  | 'server.authorization_required';

export const SERVER_EVENT_TYPES: readonly ServerEventType[] = [
  'server.status_changed',
  'server.tools_changed',
  'server.tool_change_pending',
  'server.authorization_required',
];

export interface ServerEventInput {
  serverId: string;
  /** The server's owner; null for a platform server. */
  tenantId: string | null;
  type: ServerEventType;
  /** What a receiver needs to act; never a secret, never text a server sent unbounded. */
  data: Record<string, unknown>;
}

/**
 * The statement that appends server events, one array per column, with its parameters numbered from `first`: run it
 * inside the transaction (or as part of the statement) that makes the change it describes, so both or neither exist.
 */
export function serverEventInsert(events: ServerEventInput[], first: number): { text: string; values: unknown[] } {
  const $ = (n: number) => `$${first + n}`;
  return {
    text: `INSERT INTO server_events (event_id, server_id, tenant_id, type, data)
       SELECT event_id, server_id, tenant_id, type, data
       FROM unnest(${$(0)}::uuid[], ${$(1)}::uuid[], ${$(2)}::uuid[], ${$(3)}::text[], ${$(4)}::jsonb[])
         AS e(event_id, server_id, tenant_id, type, data)`,
    values: [
      events.map(() => randomUUID()),
      events.map((e) => e.serverId),
      events.map((e) => e.tenantId),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
    ],
  };
}
