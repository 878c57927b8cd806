import { PrismaClient } from '@app/database';
import { PRISMA, QUEUE_CONNECTION, RUNTIME, Runtime } from '@app/platform';
import { QueueConnection } from '@app/queue';
import { Inject, Injectable } from '@nestjs/common';
import { ReadinessDto } from './health.dto';

@Injectable()
export class HealthService {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(QUEUE_CONNECTION) private readonly queue: QueueConnection,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  async readiness(): Promise<ReadinessDto> {
    const [database, queue] = await Promise.all([this.databaseUp(), this.queue.ping()]);
    return {
      status: database && queue ? 'ok' : 'unavailable',
      checks: { database: database ? 'up' : 'down', queue: queue ? 'up' : 'down' },
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
