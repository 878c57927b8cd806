import { ServerStatus } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { PRISMA } from '../tokens';

/** What readiness and the metrics scrape read from the database: whether it answers, and the servers by status. */
@Injectable()
export class HealthRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /** True when the database answers a trivial query within `timeoutMs`. */
  async ping(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.prisma.$queryRaw`SELECT 1`,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
          timer.unref();
        }),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every server of every tenant counted by status (an operator's gauge: no tenant sees it); each status present, 0 if none. */
  async serverCountsByStatus(): Promise<Record<ServerStatus, number>> {
    const groups = await this.prisma.server.groupBy({ by: ['status'], _count: { _all: true } });
    const counts = Object.fromEntries(Object.values(ServerStatus).map((s) => [s, 0])) as Record<ServerStatus, number>;
    for (const g of groups) if (g.status in counts) counts[g.status as ServerStatus] = g._count._all;
    return counts;
  }
}
