'use strict';
// Small helpers shared by the benchmark sections: ports, waiting, percentiles, an HTTP client that keeps its
// connections, and the progress log.
const os = require('node:os');
const { Pool } = require('undici');
const { freePort, tcpAnswers } = require('../../scripts/lib/ports');
const { httpAnswer } = require('../../scripts/lib/http-answer');

const started = Date.now();

function log(line) {
  const s = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${s}s] ${line}\n`);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1);
  return { samples: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), mean: round(mean), max: round(sorted[sorted.length - 1] ?? null) };
}

function round(x, digits = 3) {
  if (x === null || x === undefined || !Number.isFinite(x)) return x ?? null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function ms(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `fn` over `items` with at most `limit` in flight; returns the results in order. */
async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  async function lane() {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return out;
}

/** A keep-alive HTTP client for one origin, speaking JSON. */
class Http {
  constructor(origin, key, connections = 64) {
    this.origin = origin;
    this.key = key;
    // Idle sockets are dropped before the server's own keep-alive timeout (5 s) can close them under a request.
    this.pool = new Pool(origin, { connections, keepAliveTimeout: 4_000, keepAliveTimeoutThreshold: 1_000, pipelining: 1 });
  }

  async request(method, path, body, key = this.key) {
    try {
      return await this.once(method, path, body, key);
    } catch (err) {
      // A kept-alive socket the server closed as the request went out: the request never arrived; send it again.
      if (err.code !== 'UND_ERR_SOCKET') throw err;
      return this.once(method, path, body, key);
    }
  }

  async once(method, path, body, key) {
    const headers = { accept: 'application/json' };
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.pool.request({ method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return httpAnswer(res.statusCode, await res.body.text());
  }

  /** Like request, but throws unless the status is one of `ok`. */
  async expect(method, path, body, ok = [200, 201, 202, 204], key) {
    const res = await this.request(method, path, body, key);
    if (!ok.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res.json;
  }

  close() {
    return this.pool.close();
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryMiB: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
  };
}

module.exports = { log, sleep, freePort, tcpAnswers, percentile, summarize, round, ms, mapLimit, Http, machine };
