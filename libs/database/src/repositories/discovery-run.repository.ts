import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { PRISMA } from '../tokens';

/** One discovery of one server: when, how it ended, what changed. */
export interface DiscoveryRunRecord {
  id: string;
  serverId: string;
  trigger: string;
  attempt: number;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  outcome: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
  error: string | null;
  toolCount: number | null;
  added: string[];
  removed: string[];
  changed: string[];
}

const LIST = 'discovery-runs';

/** Discovery history. Callers check that the caller may see the server first. */
@Injectable()
export class DiscoveryRunRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** A server's runs, newest first, keyset-paginated on (started_at, id). */
  async listByServer(serverId: string, page: PageRequest): Promise<Page<DiscoveryRunRecord>> {
    if (!isUuid(serverId)) return { items: [] };
    const c = page.pageToken ? decodeCursor(LIST, page.pageToken) : undefined;
    const rows = await this.prisma.discoveryRun.findMany({
      where: { serverId, ...(c ? { OR: [{ startedAt: { lt: c.at } }, { startedAt: c.at, id: { lt: c.id } }] } : {}) },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: page.pageSize + 1,
      select: {
        id: true,
        serverId: true,
        trigger: true,
        attempt: true,
        startedAt: true,
        finishedAt: true,
        durationMs: true,
        outcome: true,
        error: true,
        toolCount: true,
        added: true,
        removed: true,
        changed: true,
      },
    });
    return toPage(rows, page.pageSize, LIST, (r) => ({ at: r.startedAt, id: r.id }));
  }
}
