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
    this.httpRequests = new Counter({
      name: 'mcpr_http_requests_total',
      help: 'HTTP requests answered, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'mcpr_http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.discoveries = new Counter({
      name: 'mcpr_discoveries_total',
      help: 'Discovery attempts finished, by outcome',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.discoveryDuration = new Histogram({
      name: 'mcpr_discovery_duration_seconds',
      help: 'Duration of one discovery attempt',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    this.serversByStatus = new Gauge({
      name: 'mcpr_servers',
      help: 'Registered servers, by status',
      labelNames: ['status'],
      registers: [this.registry],
    });
    this.queueDepth = new Gauge({
      name: 'mcpr_queue_jobs',
      help: 'Discovery queue jobs, by state',
      labelNames: ['state'],
      registers: [this.registry],
    });
    this.answerCacheLookups = new Counter({
      name: 'mcpr_answer_cache_lookups_total',
      help: 'Read answers looked up among the kept ones: hit, miss (read from PostgreSQL), or bypass (not listening for changes, or a write under way)',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.answerCacheBytes = new Gauge({
      name: 'mcpr_answer_cache_bytes',
      help: 'Bytes of JSON kept as read answers',
      registers: [this.registry],
    });
    this.toolCalls = new Counter({
      name: 'mcpr_tool_calls_total',
      help: 'Tool calls routed to upstream servers, by outcome',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
  }
}
