import { ConflictError, NotFoundError, ToolDefinition } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { isUuid } from '../page';
import { Sql, TransactionQuery } from '../sql';
import { SQL } from '../tokens';
import { AuditEventInput, auditInsert } from './audit.repository';
import { definitionJson, SERVED_DEFINITION, SERVED_TOOL } from './effective-tools';

/** A definition waiting for a decision, or rejected: what was discovered, and what was approved before it (if any). */
export interface HeldToolRecord {
  name: string;
  approval: 'pending' | 'rejected';
  hash: string;
  /** The definition approved before this one; null for a tool never approved. */
  approvedHash: string | null;
  seenAt: Date;
  definition: ToolDefinition;
  approvedDefinition: ToolDefinition | null;
}

export type ToolDecision = 'approve' | 'reject';

export interface ToolDecisionRecord {
  toolName: string;
  hash: string;
  approval: 'approved' | 'rejected';
  /** Whether this call changed anything (deciding again what was decided changes nothing). */
  changed: boolean;
  pendingToolChanges: number;
}

/** What an owner puts over a tool: null fields are the server's own. */
export interface ToolOverrideInput {
  title: string | null;
  description: string | null;
  annotations: Record<string, unknown> | null;
  disabled: boolean;
}

export interface ToolOverrideRecord extends ToolOverrideInput {
  serverId: string;
  toolName: string;
  updatedAt: Date;
  /** The tool as callers are served it now (null: not served: disabled, pending or rejected). */
  served: ToolDefinition | null;
}

/** Locks the server's row (as recording a discovery does: the two never interleave); false when it is gone. */
async function lockServer(query: TransactionQuery, serverId: string): Promise<boolean> {
  const rows = await query(`SELECT 1 FROM servers WHERE id = $1::uuid FOR UPDATE`, [serverId]);
  return rows.length === 1;
}

async function audit(query: TransactionQuery, event: AuditEventInput): Promise<void> {
  const insert = auditInsert([event], 1);
  await query(insert.text, insert.values);
}

/**
 * Decisions on tool definitions held by a server's tool policy, and owners' overrides: each written with its
 * audit record in one transaction, under the server's lock. Callers check that the caller may act on the server.
 */
@Injectable()
export class ToolReviewRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  /** The server's pending and rejected definitions, in listing order. */
  async listHeld(serverId: string): Promise<HeldToolRecord[]> {
    if (!isUuid(serverId)) return [];
    return this.sql.query<HeldToolRecord>(
      `SELECT t.name, t.approval, t.hash, t.approved_hash AS "approvedHash", t.seen_at AS "seenAt",
              ${definitionJson('t')} AS definition, t.approved_definition AS "approvedDefinition"
         FROM tools t WHERE t.server_id = $1::uuid AND t.approval <> 'approved'
        ORDER BY t.approval, t.position, t.name`,
      [serverId],
    );
  }

  /**
   * Approves or rejects the definition with `hash` of a tool. A hash that is not the tool's definition now is a
   * conflict: it changed again meanwhile, and what was looked at is not what would be decided. Approving makes
   * the definition served; rejecting keeps the tool out until its definition changes again (then it waits
   * again) or is approved. Deciding what is already so changes nothing and writes no audit record.
   */
  async decide(serverId: string, toolName: string, hash: string, decision: ToolDecision, event: AuditEventInput): Promise<ToolDecisionRecord> {
    return this.sql.transaction(async (query) => {
      if (!(await lockServer(query, serverId))) throw new NotFoundError(`server ${serverId} not found`);
      const [tool] = await query<{ approval: string; hash: string; pending: number }>(
        `SELECT t.approval, t.hash, s.pending_tool_changes AS pending
           FROM tools t JOIN servers s ON s.id = t.server_id WHERE t.server_id = $1::uuid AND t.name = $2`,
        [serverId, toolName],
      );
      if (!tool) throw new NotFoundError(`tool "${toolName}" not found on this server`);
      if (tool.hash !== hash) {
        throw new ConflictError(
          `the definition of "${toolName}" changed again since it was looked at: its hash is now ${tool.hash}, not ${hash}; ` +
            'read GET tool-changes again and decide on what it shows',
        );
      }
      const target = decision === 'approve' ? 'approved' : 'rejected';
      if (decision === 'reject' && tool.approval === 'approved') {
        throw new ConflictError(`the definition of "${toolName}" is approved and nothing of it waits; to keep the tool out, disable it with its override`);
      }
      if (tool.approval === target) return { toolName, hash, approval: target, changed: false, pendingToolChanges: tool.pending };
      const [row] = await query<{ pending: number }>(
        `WITH decided AS (
           UPDATE tools SET approval = $3,
                  approved_hash = CASE WHEN $3 = 'approved' THEN NULL ELSE approved_hash END,
                  approved_definition = CASE WHEN $3 = 'approved' THEN NULL ELSE approved_definition END
            WHERE server_id = $1::uuid AND name = $2)
         UPDATE servers SET pending_tool_changes = GREATEST(pending_tool_changes - $4, 0), updated_at = now()
          WHERE id = $1::uuid RETURNING pending_tool_changes AS pending`,
        [serverId, toolName, target, tool.approval === 'pending' ? 1 : 0],
      );
      await audit(query, event);
      return { toolName, hash, approval: target, changed: true, pendingToolChanges: row.pending };
    });
  }

  /** Puts (or replaces) the override of a tool the server has, whatever its decision; throws NotFound for another. */
  async putOverride(serverId: string, toolName: string, input: ToolOverrideInput, event: AuditEventInput): Promise<ToolOverrideRecord> {
    return this.sql.transaction(async (query) => {
      if (!(await lockServer(query, serverId))) throw new NotFoundError(`server ${serverId} not found`);
      const known = await query(`SELECT 1 FROM tools WHERE server_id = $1::uuid AND name = $2`, [serverId, toolName]);
      if (known.length === 0) throw new NotFoundError(`tool "${toolName}" not found on this server; an override is put over a tool discovery found`);
      await query(
        `INSERT INTO tool_overrides (server_id, tool_name, title, description, annotations, disabled, updated_at)
         VALUES ($1::uuid, $2, $3, $4, $5::jsonb, $6, now())
         ON CONFLICT (server_id, tool_name) DO UPDATE
            SET title = excluded.title, description = excluded.description, annotations = excluded.annotations,
                disabled = excluded.disabled, updated_at = now()`,
        [serverId, toolName, input.title, input.description, input.annotations === null ? null : JSON.stringify(input.annotations), input.disabled],
      );
      await audit(query, event);
      return (await this.readOverride(query, serverId, toolName))!;
    });
  }

  /** Removes a tool's override; throws NotFound when it has none. */
  async deleteOverride(serverId: string, toolName: string, event: AuditEventInput): Promise<void> {
    await this.sql.transaction(async (query) => {
      if (!(await lockServer(query, serverId))) throw new NotFoundError(`server ${serverId} not found`);
      const gone = await query(`DELETE FROM tool_overrides WHERE server_id = $1::uuid AND tool_name = $2 RETURNING 1`, [serverId, toolName]);
      if (gone.length === 0) throw new NotFoundError(`tool "${toolName}" has no override on this server`);
      await audit(query, event);
    });
  }

  /** Every override of a server, by tool name (also of tools the last discovery did not find). */
  async listOverrides(serverId: string): Promise<ToolOverrideRecord[]> {
    if (!isUuid(serverId)) return [];
    return this.sql.query<ToolOverrideRecord>(`${OVERRIDE_SELECT} WHERE o.server_id = $1::uuid ORDER BY o.tool_name`, [serverId]);
  }

  private async readOverride(query: TransactionQuery, serverId: string, toolName: string): Promise<ToolOverrideRecord | undefined> {
    const [row] = await query<ToolOverrideRecord>(`${OVERRIDE_SELECT} WHERE o.server_id = $1::uuid AND o.tool_name = $2`, [serverId, toolName]);
    return row;
  }
}

const OVERRIDE_SELECT = `SELECT o.server_id AS "serverId", o.tool_name AS "toolName", o.title, o.description, o.annotations, o.disabled,
         o.updated_at AS "updatedAt", CASE WHEN t.name IS NOT NULL AND ${SERVED_TOOL} THEN ${SERVED_DEFINITION} END AS served
    FROM tool_overrides o LEFT JOIN tools t ON t.server_id = o.server_id AND t.name = o.tool_name`;
