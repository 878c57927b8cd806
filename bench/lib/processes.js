'use strict';
// The processes a benchmark run starts: each with its output in a log file of the run's directory, each
// stopped by its own pid when the run ends (normally, on error, or on Ctrl-C).
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { sleep } = require('./util');

const running = new Set();

/**
 * Starts `node args...` with `env`; stdout and stderr go to `<logDir>/<label>.log`. With `pipeStdout` the
 * caller reads stdout itself (for processes that answer with JSON).
 */
function startNode(label, args, { env, cwd, logDir, pipeStdout = false, nodeOptions = [] }) {
  const logPath = path.join(logDir, `${label}.log`);
  const out = fs.openSync(logPath, 'a');
  const child = spawn(process.execPath, [...nodeOptions, ...args], {
    cwd,
    env,
    stdio: ['ignore', pipeStdout ? 'pipe' : out, out],
  });
  fs.closeSync(out);
  const proc = { label, child, pid: child.pid, logPath, exit: null };
  proc.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      proc.exit = { code, signal };
      running.delete(proc);
      resolve(proc.exit);
    });
  });
  running.add(proc);
  return proc;
}

/** Runs a node script to its end and parses the last JSON line of its stdout. */
async function runNodeJson(label, args, options) {
  const proc = startNode(label, args, { ...options, pipeStdout: true });
  let stdout = '';
  proc.child.stdout.on('data', (d) => (stdout += d));
  const exit = await proc.exited;
  const lines = stdout.trim().split('\n').filter(Boolean);
  if (exit.code !== 0 || lines.length === 0) {
    throw new Error(`${label} exited with ${exit.code ?? exit.signal}; see ${proc.logPath}: ${tail(proc.logPath)}`);
  }
  return JSON.parse(lines[lines.length - 1]);
}

/** Starts a node script that prints one JSON line when ready; resolves with that line and the process. */
async function startNodeReady(label, args, options, timeoutMs = 30_000) {
  const proc = startNode(label, args, { ...options, pipeStdout: true });
  let buffer = '';
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} not ready within ${timeoutMs} ms`)), timeoutMs);
    proc.child.stdout.on('data', (d) => {
      buffer += d;
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(buffer.slice(0, nl)));
        } catch (err) {
          reject(err);
        }
      }
    });
    proc.exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${e.code ?? e.signal} before it was ready: ${tail(proc.logPath)}`));
    });
  });
  return { proc, ready };
}

/** Waits until `pattern` appears in a process's log file, or it exits, or the time is up. */
async function waitForLog(proc, pattern, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exit) throw new Error(`${proc.label} exited with ${proc.exit.code ?? proc.exit.signal}: ${tail(proc.logPath)}`);
    const text = fs.readFileSync(proc.logPath, 'utf8');
    if (pattern.test(text)) return;
    await sleep(100);
  }
  throw new Error(`${proc.label}: "${pattern.source}" not seen within ${timeoutMs} ms: ${tail(proc.logPath)}`);
}

function tail(file, lines = 15) {
  try {
    return '\n' + fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. */
async function stop(proc, graceMs = 10_000) {
  if (!proc || proc.exit) return;
  try {
    process.kill(proc.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = sleep(graceMs).then(() => 'timeout');
  if ((await Promise.race([proc.exited, timer])) === 'timeout') {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await proc.exited;
  }
}

async function stopAll() {
  await Promise.all([...running].map((p) => stop(p, 5000)));
}

/** Kills what is left synchronously: for the process's own exit. */
function killAllNow() {
  for (const p of running) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Resident and peak resident memory of a live process, in MiB (from /proc/<pid>/status). */
function memoryOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name) => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) : null;
    };
    const rss = kib('VmRSS');
    const hwm = kib('VmHWM');
    return { rssMiB: rss === null ? null : Math.round((rss / 1024) * 10) / 10, peakMiB: hwm === null ? null : Math.round((hwm / 1024) * 10) / 10 };
  } catch {
    return null;
  }
}

module.exports = { startNode, runNodeJson, startNodeReady, waitForLog, stop, stopAll, killAllNow, memoryOf, tail };
