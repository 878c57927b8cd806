import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The process's metrics, exposed on /metrics in Prometheus text format. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly discoveries: Counter<'outcome'>;
  readonly discoveryDuration: Histogram<'outcome'>;
  readonly serversByStatus: Gauge<'status'>;
  readonly queueDepth: Gauge<'state'>;
  readonly toolCalls: Counter<'outcome'>;
  readonly answerCacheLookups: Counter<'result'>;
  readonly answerCacheBytes: Gauge;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'mcpr_' });
    this.httpRequests = this.counter('mcpr_http_requests_total', 'HTTP requests answered, by method, route and status', ['method', 'route', 'status']);
    this.httpDuration = this.histogram('mcpr_http_request_duration_seconds', 'HTTP request duration', ['method', 'route'], [
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    ]);
    this.discoveries = this.counter('mcpr_discoveries_total', 'Discovery attempts finished, by outcome', ['outcome']);
    this.discoveryDuration = this.histogram('mcpr_discovery_duration_seconds', 'Duration of one discovery attempt', ['outcome'], [
      0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
    ]);
    this.serversByStatus = this.gauge('mcpr_servers', 'Registered servers, by status', ['status']);
    this.queueDepth = this.gauge('mcpr_queue_jobs', 'Discovery queue jobs, by state', ['state']);
    this.answerCacheLookups = this.counter(
      'mcpr_answer_cache_lookups_total',
      'Read answers looked up among the kept ones: hit, miss (read from PostgreSQL), or bypass (not listening for changes, or a write under way)',
      ['result'],
    );
    this.answerCacheBytes = new Gauge({ name: 'mcpr_answer_cache_bytes', help: 'Bytes of JSON kept as read answers', registers: [this.registry] });
    this.toolCalls = this.counter('mcpr_tool_calls_total', 'Tool calls routed to upstream servers, by outcome', ['outcome']);
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string>(name: string, help: string, labelNames: L[]): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }
}
