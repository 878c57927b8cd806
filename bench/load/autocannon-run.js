#!/usr/bin/env node
// One load run with autocannon, in a process of its own so that the load generator shares no event loop with
// the process under test or the bench. Argument: JSON {url, method, headers, bodies?, paths?, connections,
// duration, warmup}. Requests cycle through `bodies` (or `paths`) so that every request asks for something
// else. Prints JSON {rps, p50, p90, p99, max, requests, non2xx, errors, timeouts}.
'use strict';
const autocannon = require('autocannon');

const opts = JSON.parse(process.argv[2]);

function run(duration) {
  let n = 0;
  const bodies = opts.bodies;
  const paths = opts.paths;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: opts.url,
        method: opts.method ?? 'GET',
        headers: opts.headers ?? {},
        connections: opts.connections ?? 50,
        pipelining: 1,
        duration,
        timeout: 10,
        requests: [
          {
            setupRequest: (req) => {
              const i = n++;
              if (bodies && bodies.length) req.body = bodies[i % bodies.length];
              if (paths && paths.length) req.path = paths[i % paths.length];
              return req;
            },
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

async function main() {
  if (opts.warmup > 0) await run(opts.warmup);
  const r = await run(opts.duration ?? 10);
  process.stdout.write(
    JSON.stringify({
      rps: r.requests.average,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
      mean: r.latency.average,
      requests: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      statusCodes: r.statusCodeStats,
    }) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack) + '\n');
  process.exit(1);
});
