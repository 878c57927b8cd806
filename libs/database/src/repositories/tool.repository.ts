import { ToolDefinition, viewerTenant } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { isUuid } from '../page';
import { ReadScope, visibleSql } from '../scope';
import { Sql } from '../sql';
import { SQL } from '../tokens';
import { LIVE_SERVER, SERVED_DEFINITION, SERVED_TOOL, TOOL_OVERRIDE_JOIN } from './effective-tools';

/** A tool as stored: its definition and the sha256 of its RFC 8785 canonical JSON. */
export interface StoredTool extends ToolDefinition {
  hash: string;
}

/** What a discovery changed, by tool name: a changed tool is one whose definition hash differs. */
export interface ToolChanges {
  added: string[];
  removed: string[];
  changed: string[];
  /** Tools whose new or changed definition waits for a decision (tool policy pinned or approval). */
  held: string[];
}

/** The decision on a tool's definition as discovered. */
export type ToolApproval = 'approved' | 'pending' | 'rejected';

/** Why a tool the server has is not served. */
export type WithheldReason = 'pending' | 'rejected' | 'disabled';

/** A tool of the server that is not served, for its owner: the definition as discovered (its override over it). */
export interface WithheldTool {
  reason: WithheldReason;
  hash: string;
  tool: ToolDefinition;
}

/** Why tool `t` is not served: its definition's decision, else its override disables it. */
const WITHHELD_REASON = `CASE WHEN t.approval = 'approved' THEN 'disabled' ELSE t.approval END`;

/**
 * The tools of servers, as callers are served them (see effective-tools.ts: approved, not disabled, overrides
 * applied, on live servers the caller may see), and what a server's owner sees besides.
 */
@Injectable()
export class ToolRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  /**
   * One server's served tools, in the order the server listed them (none when the scope may not see it).
   * `live: false`: also while the server is not live (the REST view of a disabled or failing server's tools).
   */
  async listServed(serverId: string, scope: ReadScope, { live = true }: { live?: boolean } = {}): Promise<ToolDefinition[]> {
    return (await this.listServedByServers([serverId], scope, { live })).get(serverId) ?? [];
  }

  /** The served tools of several servers at once (a page of servers), each list in the server's order. */
  async listServedByServers(serverIds: string[], scope: ReadScope, { live = true }: { live?: boolean } = {}): Promise<Map<string, ToolDefinition[]>> {
    const ids = serverIds.filter(isUuid);
    const out = new Map<string, ToolDefinition[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    const rows = await this.sql.query<{ serverId: string; definition: ToolDefinition }>(
      `SELECT t.server_id AS "serverId", ${SERVED_DEFINITION} AS definition
         FROM servers s JOIN tools t ON t.server_id = s.id ${TOOL_OVERRIDE_JOIN}
        WHERE s.id = ANY($1::uuid[]) AND ${visibleSql('s.tenant_id', '$2')} AND ($3::boolean IS FALSE OR ${LIVE_SERVER}) AND ${SERVED_TOOL}
        ORDER BY t.server_id, t.position, t.name`,
      [ids, viewerTenant(scope), live],
      'tools.served',
    );
    for (const row of rows) out.get(row.serverId)?.push(row.definition);
    return out;
  }

  /** Why a tool the server has is not served (undefined: it is served, or the server has no such tool). */
  async withheldReason(serverId: string, toolName: string): Promise<WithheldReason | undefined> {
    if (!isUuid(serverId)) return undefined;
    const [row] = await this.sql.query<{ reason: WithheldReason }>(
      `SELECT ${WITHHELD_REASON} AS reason FROM tools t ${TOOL_OVERRIDE_JOIN}
        WHERE t.server_id = $1::uuid AND t.name = $2 AND NOT (${SERVED_TOOL})`,
      [serverId, toolName],
    );
    return row?.reason;
  }

  /** The tools of a server that are not served (pending, rejected, disabled), for its owner; in listing order. */
  async listWithheld(serverId: string): Promise<WithheldTool[]> {
    if (!isUuid(serverId)) return [];
    return this.sql.query<WithheldTool>(
      `SELECT ${WITHHELD_REASON} AS reason,
              t.hash, ${SERVED_DEFINITION} AS tool
         FROM tools t ${TOOL_OVERRIDE_JOIN}
        WHERE t.server_id = $1::uuid AND NOT (${SERVED_TOOL})
        ORDER BY t.position, t.name`,
      [serverId],
    );
  }
}
