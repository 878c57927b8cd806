#!/usr/bin/env node
// One load run with autocannon, in a process of its own so that the load generator shares no event loop with
// the process under test or the bench. Argument: JSON {url, method, headers, bodies?, paths?, connections,
// duration, warmup, amount?, cpuPid?}. Each connection cycles through `bodies` (or `paths`), so that successive requests ask
// for different things. Prints JSON {rps, p50, p90, p99, max, requests, non2xx, errors, timeouts}, and the CPU of
// the process `cpuPid` during the timed run {cpuMs, cpuUsPerRequest} where /proc tells it.
'use strict';
const fs = require('node:fs');
const autocannon = require('autocannon');
const { cpuMsOf } = require('../lib/cpu');

const opts = JSON.parse(process.argv[2]);

/** The machine's CPU time so far, from /proc/stat: busy, idle and stolen (by the hypervisor) jiffies over all cores. */
function machineCpu() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
    return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal: steal ?? 0 };
  } catch {
    return null;
  }
}

/**
 * The requests to cycle through, built once: autocannon prepares each static request's bytes in advance,
 * whereas a setupRequest callback rebuilds them for every request and makes the load generator, not the
 * process under test, the limit.
 */
function requestList() {
  if (opts.bodies && opts.bodies.length) return opts.bodies.map((body) => ({ body }));
  if (opts.paths && opts.paths.length) return opts.paths.map((path) => ({ path }));
  return undefined;
}

/** One run: for `duration` seconds, or (`amount`) until that many requests were answered. */
function run(duration, amount) {
  const requests = requestList();
  // Each connection starts at its own place in the list, so that the connections do not all ask for the same
  // thing at the same moment.
  let clients = 0;
  const setupClient = (client) => {
    if (!requests) return;
    const offset = Math.floor(((clients++ * 7919) % requests.length));
    client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)].map((r) => ({ ...r })));
  };
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: opts.url,
        method: opts.method ?? 'GET',
        headers: opts.headers ?? {},
        connections: opts.connections ?? 50,
        pipelining: 1,
        ...(amount ? { amount } : { duration }),
        timeout: 10,
        ...(requests ? { requests, setupClient } : {}),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

async function main() {
  // The warm-up asks for everything in the list (twice over) before the timed warm-up, so that the timed run
  // measures the steady state, whatever the list's length and however slow a first answer is.
  const listed = (opts.bodies ?? opts.paths ?? []).length;
  if (opts.warmup > 0 && listed > 1) await run(undefined, listed * 2);
  if (opts.warmup > 0) await run(opts.warmup);
  const cpuBefore = cpuMsOf(opts.cpuPid);
  const ownBefore = process.cpuUsage();
  const machineBefore = machineCpu();
  // `amount`: that many requests instead of a timed run (each item of the list once, say).
  const r = await run(opts.amount ? undefined : (opts.duration ?? 10), opts.amount);
  const cpuMs = cpuBefore === null ? null : cpuMsOf(opts.cpuPid) - cpuBefore;
  const own = process.cpuUsage(ownBefore);
  const machineAfter = machineCpu();
  const machine = machineBefore && machineAfter ? Object.fromEntries(Object.keys(machineAfter).map((k) => [k, machineAfter[k] - machineBefore[k]])) : null;
  const machineAll = machine ? machine.busy + machine.idle + machine.steal : 0;
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
      // CPU the process under test (cpuPid) spent during the timed run, and per request answered.
      ...(cpuMs === null ? {} : { cpuMs, cpuUsPerRequest: r.requests.total ? Math.round((cpuMs * 1000) / r.requests.total) : null }),
      // The load generator's own CPU per request: it shares the machine with the process under test.
      loadCpuUsPerRequest: r.requests.total ? Math.round((own.user + own.system) / r.requests.total) : null,
      // How busy the whole machine was during the timed run (shares of all its cores' time).
      ...(machineAll ? { machineBusy: Math.round((machine.busy / machineAll) * 1000) / 1000, machineSteal: Math.round((machine.steal / machineAll) * 1000) / 1000 } : {}),
    }) + '\n',
  );
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack) + '\n');
  process.exit(1);
});
