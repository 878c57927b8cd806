import { ToolDefinition } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Tool } from '../generated/prisma/client';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { Sql } from '../sql';
import { PRISMA, SQL } from '../tokens';

/** The columns a definition is made of, under their Prisma field names. */
const TOOL_COLUMNS = `server_id AS "serverId", name, title, description, input_schema AS "inputSchema", output_schema AS "outputSchema", annotations`;

function toDefinition(row: Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema' | 'annotations'>): ToolDefinition {
  const tool: ToolDefinition = { name: row.name, inputSchema: (row.inputSchema ?? { type: 'object' }) as Record<string, unknown> };
  if (row.title !== null) tool.title = row.title;
  if (row.description !== null) tool.description = row.description;
  if (row.outputSchema !== null) tool.outputSchema = row.outputSchema as Record<string, unknown>;
  if (row.annotations !== null) tool.annotations = row.annotations as Record<string, unknown>;
  return tool;
}

/** A tool as stored: its definition and the sha256 of the whole canonical definition. */
export interface StoredTool extends ToolDefinition {
  hash: string;
}

/** What a replacement changed, by tool name: a changed tool is one whose definition hash differs. */
export interface ToolChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

function json(value: Record<string, unknown> | undefined): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** The tools of servers as last discovered. Callers check that the caller may see the server first. */
@Injectable()
export class ToolRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL) private readonly sql: Sql,
  ) {}

  /** One server's tools, in the order the server listed them. */
  async listByServer(serverId: string): Promise<ToolDefinition[]> {
    if (!isUuid(serverId)) return [];
    const rows = await this.sql.query<Tool>(`SELECT ${TOOL_COLUMNS} FROM tools WHERE server_id = $1::uuid ORDER BY position, name`, [serverId]);
    return rows.map(toDefinition);
  }

  /** The tools of several servers at once (a page of servers), each list in the server's order. */
  async listByServers(serverIds: string[]): Promise<Map<string, ToolDefinition[]>> {
    const ids = serverIds.filter(isUuid);
    const out = new Map<string, ToolDefinition[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    const rows = await this.sql.query<Tool>(`SELECT ${TOOL_COLUMNS} FROM tools WHERE server_id = ANY($1::uuid[]) ORDER BY server_id, position, name`, [ids]);
    for (const row of rows) out.get(row.serverId)?.push(toDefinition(row));
    return out;
  }

  /**
   * Replaces a server's whole tool list inside the caller's transaction, so a
   * reader sees the old list or the new one, never a mix. Returns what changed.
   */
  async replaceAll(tx: Prisma.TransactionClient, serverId: string, tools: StoredTool[]): Promise<ToolChanges> {
    const before = await tx.tool.findMany({ where: { serverId }, select: { name: true, hash: true } });
    const old = new Map(before.map((t) => [t.name, t.hash]));
    const now = new Map(tools.map((t) => [t.name, t.hash]));
    const changes: ToolChanges = {
      added: tools.filter((t) => !old.has(t.name)).map((t) => t.name),
      removed: before.filter((t) => !now.has(t.name)).map((t) => t.name),
      changed: tools.filter((t) => old.has(t.name) && old.get(t.name) !== t.hash).map((t) => t.name),
    };
    await tx.tool.deleteMany({ where: { serverId } });
    const BATCH = 1000;
    for (let i = 0; i < tools.length; i += BATCH) {
      await tx.tool.createMany({
        data: tools.slice(i, i + BATCH).map((t, j) => ({
          id: randomUUID(),
          serverId,
          name: t.name,
          title: t.title ?? null,
          description: t.description ?? null,
          inputSchema: t.inputSchema as Prisma.InputJsonValue,
          outputSchema: json(t.outputSchema),
          annotations: json(t.annotations),
          hash: t.hash,
          position: i + j,
        })),
      });
    }
    return changes;
  }
}
