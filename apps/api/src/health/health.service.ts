import { PrismaClient } from '@app/database';
import { PRISMA, QUEUE_CONNECTION, RUNTIME, Runtime } from '@app/platform';
import { QueueConnection } from '@app/queue';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ReadinessDto } from './health.dto';

/** Provided where an API process keeps a tool catalog: it is ready to serve once the catalog is loaded. */
export const TOOL_CATALOG_READINESS = Symbol('TOOL_CATALOG_READINESS');
export interface ToolCatalogReadiness {
  isLoaded(): boolean;
}

@Injectable()
export class HealthService {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(QUEUE_CONNECTION) private readonly queue: QueueConnection,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Optional() @Inject(TOOL_CATALOG_READINESS) private readonly catalog?: ToolCatalogReadiness,
  ) {}

  async readiness(): Promise<ReadinessDto> {
    const [database, queue] = await Promise.all([this.databaseUp(), this.queue.ping()]);
    const catalog = this.catalog ? this.catalog.isLoaded() : true;
    return {
      status: database && queue && catalog ? 'ok' : 'unavailable',
      checks: {
        database: database ? 'up' : 'down',
        queue: queue ? 'up' : 'down',
        ...(this.catalog ? { toolCatalog: catalog ? 'loaded' : 'loading' } : {}),
      },
      queueBackend: this.queue.kind,
      embeddedDatabase: this.runtime.embedded !== undefined,
    };
  }

  private async databaseUp(): Promise<boolean> {
    try {
      await Promise.race([
        this.prisma.$queryRaw`SELECT 1`,
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      return true;
    } catch {
      return false;
    }
  }
}
