import { DatabaseModule } from '@app/database';
import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { MetricsCollector } from './metrics.collector';
import { MetricsController } from './metrics.controller';

@Module({
  imports: [DatabaseModule],
  controllers: [HealthController, MetricsController],
  providers: [HealthService, MetricsCollector],
})
export class HealthModule {}
