import { Metrics } from '@app/observability';
import { createServer, Server } from 'node:http';

/**
 * A worker's own /metrics (discoveries by outcome, their durations, process
 * figures) and /health/live, for scrapers and orchestrators; nothing else.
 */
export async function startWorkerMetricsServer(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      metrics.registry
        .metrics()
        .then((text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        })
        .catch(() => {
          res.writeHead(500).end();
        });
      return;
    }
    if (req.method === 'GET' && req.url === '/health/live') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok"}');
      return;
    }
    res.writeHead(404, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: '/problems/not-found', title: 'Not found', status: 404, detail: 'this worker serves /metrics and /health/live only' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
