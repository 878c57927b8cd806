import { HealthRepository } from '@app/database';
import { QUEUE_CONNECTION, RUNTIME, Runtime } from '@app/platform';
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
    private readonly database: HealthRepository,
    @Inject(QUEUE_CONNECTION) private readonly queue: QueueConnection,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Optional() @Inject(TOOL_CATALOG_READINESS) private readonly catalog?: ToolCatalogReadiness,
  ) {}

  async readiness(): Promise<ReadinessDto> {
    const [database, queue] = await Promise.all([this.database.ping(), this.queue.ping()]);
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
}
