'use strict';
// CPU time by role over a timed window, read from /proc (Linux): what each process of a run costs the machine,
// independent of how fast the machine happens to be. Elsewhere every figure is null.
const fs = require('node:fs');

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on every Linux this runs on). */
const TICKS = 100;

/** CPU milliseconds (user + system) used so far by a process, or null when it is gone or unreadable. */
function cpuMsOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted from the closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return null;
  }
}

/** Pids of every process whose command name is `comm` (all of PostgreSQL's processes, say). */
function pidsNamed(comm) {
  const pids = [];
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/comm`, 'utf8').trim() === comm) pids.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Measures CPU by role between start() and stop(). `roles` maps a role to a function giving its pids at the
 * time of reading (PostgreSQL starts a process per connection: one started in the window counts from zero; one
 * that ended in the window is not counted). Returns { role: ms } and `total`.
 */
class CpuMeter {
  constructor(roles) {
    this.roles = roles;
    this.before = null;
  }

  read() {
    const snap = {};
    for (const [role, pidsOf] of Object.entries(this.roles)) {
      snap[role] = new Map();
      for (const pid of pidsOf()) {
        const v = cpuMsOf(pid);
        if (v !== null) snap[role].set(pid, v);
      }
    }
    return snap;
  }

  start() {
    this.before = this.read();
    return this;
  }

  stop() {
    const after = this.read();
    const out = {};
    let total = 0;
    for (const role of Object.keys(this.roles)) {
      let ms = 0;
      for (const [pid, v] of after[role]) ms += v - (this.before?.[role].get(pid) ?? 0);
      out[role] = Math.round(ms);
      total += ms;
    }
    out.total = Math.round(total);
    return out;
  }
}

const supported = fs.existsSync('/proc/self/stat');

module.exports = { CpuMeter, cpuMsOf, pidsNamed, supported };
