import { ToolDefinition } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { Tool } from '../generated/prisma/client';
import { PrismaClient } from '../generated/prisma/client';
import { isUuid } from '../page';
import { PRISMA } from '../tokens';

function toDefinition(row: Tool): ToolDefinition {
  const tool: ToolDefinition = { name: row.name, inputSchema: (row.inputSchema ?? { type: 'object' }) as Record<string, unknown> };
  if (row.title !== null) tool.title = row.title;
  if (row.description !== null) tool.description = row.description;
  if (row.outputSchema !== null) tool.outputSchema = row.outputSchema as Record<string, unknown>;
  if (row.annotations !== null) tool.annotations = row.annotations as Record<string, unknown>;
  return tool;
}

/** The tools of servers as last discovered. Callers check that the caller may see the server first. */
@Injectable()
export class ToolRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** One server's tools, in the order the server listed them. */
  async listByServer(serverId: string): Promise<ToolDefinition[]> {
    if (!isUuid(serverId)) return [];
    const rows = await this.prisma.tool.findMany({ where: { serverId }, orderBy: [{ position: 'asc' }, { name: 'asc' }] });
    return rows.map(toDefinition);
  }

  /** The tools of several servers at once (a page of servers), each list in the server's order. */
  async listByServers(serverIds: string[]): Promise<Map<string, ToolDefinition[]>> {
    const ids = serverIds.filter(isUuid);
    const out = new Map<string, ToolDefinition[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return out;
    const rows = await this.prisma.tool.findMany({
      where: { serverId: { in: ids } },
      orderBy: [{ serverId: 'asc' }, { position: 'asc' }, { name: 'asc' }],
    });
    for (const row of rows) out.get(row.serverId)?.push(toDefinition(row));
    return out;
  }
}
