import { Metrics } from '@app/observability';
import { METRICS } from '@app/platform';
import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { MetricsCollector } from './metrics.collector';


@ApiTags('health')
@Controller()
export class MetricsController {
  constructor(
    @Inject(METRICS) private readonly metrics: Metrics,
    private readonly collector: MetricsCollector,
  ) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @ApiOperation({ summary: 'Prometheus metrics: HTTP, discoveries, servers by status, queue depth, tool calls' })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Prometheus text exposition format',
    content: {
      'text/plain': {
        schema: { type: 'string' },
        example: '# HELP mcpr_servers Servers by status\n# TYPE mcpr_servers gauge\nmcpr_servers{status="CONNECTED"} 42\n',
      },
    },
  })
  async scrape(): Promise<string> {
    await this.collector.refresh();
    return this.metrics.registry.metrics();
  }
}
