import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { LivenessDto, ReadinessDto } from './health.dto';
import { HealthService } from './health.service';


@ApiTags('health')
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get(['health/live', 'api/v1/health/live'])
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process serves HTTP' })
  @ApiOkResponse({ type: LivenessDto, example: { status: 'ok' } })
  live(): LivenessDto {
    return { status: 'ok' };
  }

  @Get(['health/ready', 'api/v1/health/ready'])
  @ApiOperation({ summary: 'Readiness: the database and the job queue answer, and the tool catalog is loaded' })
  @ApiOkResponse({ type: ReadinessDto, example: { status: 'ok', checks: { database: 'up', queue: 'up', toolCatalog: 'loaded' }, queueBackend: 'redis', embeddedDatabase: false } })
  @ApiServiceUnavailableResponse({
    type: ReadinessDto,
    description: 'A dependency is down',
    example: { status: 'unavailable', checks: { database: 'up', queue: 'down', toolCatalog: 'loaded' }, queueBackend: 'redis', embeddedDatabase: false },
  })
  async ready(@Res({ passthrough: true }) res: Response): Promise<ReadinessDto> {
    const result = await this.health.readiness();
    res.status(result.status === 'ok' ? 200 : 503);
    return result;
  }
}
