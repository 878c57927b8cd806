'use strict';
// The platform of sections 2 to 5: api and one worker on a database of this run, seeded in two steps
// (1,000 servers / 10,000 tools, then 10,000 servers / 100,000 tools) with the api restarted after each
// step, so that it starts on the stored registry as a deployment would.
const path = require('node:path');
const { Client } = require('pg');
const { log } = require('../lib/util');
const { runNodeJson } = require('../lib/processes');
const { Platform, createDatabase, dropDatabase, queuePrefix, deleteRedisPrefix, ROOT } = require('../lib/platform');
const { tenantIdOf, serverIdOf, ownerOf } = require('../lib/ids');

const TOOLS_PER_SERVER = 10;
const TENANTS = 200;
/** The tenant whose key the read and search sections use: it sees the platform's servers and its own. */
const TENANT = 7;

class SeededPlatform {
  constructor(ctx) {
    this.ctx = ctx;
    this.mode = ctx.stores.redis ? 'postgresql+redis' : 'postgresql';
    this.servers = 0;
    this.tools = 0;
    this.platform = null;
    this.tenantKey = null;
    this.seedMs = [];
  }

  async init() {
    this.database = await createDatabase('read');
    this.prefix = this.mode === 'postgresql+redis' ? queuePrefix('read') : undefined;
    this.platform = new Platform({
      mode: this.mode,
      tag: 'seeded',
      logDir: this.ctx.logDir,
      workers: 1,
      // The call benchmark makes more calls a minute than the default per-tenant limit allows.
      env: { RATE_LIMIT_PER_MINUTE: '1000000' },
      database: this.database,
      prefix: this.prefix,
    });
    // A first start applies the migrations; seeding needs the schema.
    log('seeded platform: first start (migrations)');
    await this.platform.start();
    await this.platform.stop();
  }

  async seedScript(label, args) {
    return runNodeJson(label, [path.join(__dirname, '..', 'seed', 'seed-registry.js'), JSON.stringify({ databaseUrl: this.database.url, ...args })], {
      env: process.env,
      cwd: ROOT,
      logDir: this.ctx.logDir,
    });
  }

  /** Stores only the evaluation set's 25 servers and 306 tools and starts the platform on them. */
  async seedEvalSet() {
    if (this.platform.api) await this.platform.stop();
    const r = await this.seedScript('seed-eval', { evalSet: true, tenant: TENANT });
    log(`seeded platform: the evaluation set, ${r.servers} servers and ${r.tools} tools; starting api and worker`);
    this.evalSeeded = true;
    await this.platform.start({ nodeOptions: this.ctx.nodeOptions });
    this.tenantKey = (await this.platform.http.expect('POST', `/api/v1/tenants/${tenantIdOf(TENANT)}/api-keys`, { name: `bench-${Date.now()}` }, [201])).key;
    return r;
  }

  /** Seeds servers [seededTo, servers) (10 tools each) and restarts the platform on them. */
  async grow(servers) {
    if (this.platform.api) await this.platform.stop();
    if (this.evalSeeded) {
      const c = new Client({ connectionString: this.database.url });
      await c.connect();
      await c.query(`DELETE FROM servers WHERE name LIKE 'eval-%' AND url LIKE 'http://127.0.0.1:9/eval/%'`).finally(() => c.end());
      this.evalSeeded = false;
    }
    log(`seeded platform: seeding ${servers} servers, ${servers * TOOLS_PER_SERVER} tools`);
    const r = await this.seedScript(`seed-${servers}`, { fromServer: this.seededTo ?? 0, toServer: servers, toolsPerServer: TOOLS_PER_SERVER, tenants: TENANTS, totalTools: 100_000 });
    this.seedMs.push(r.ms);
    this.seededTo = servers;
    this.servers = r.servers;
    this.tools = r.tools;
    log(`seeded platform: ${r.servers} servers, ${r.tools} tools stored in ${r.ms} ms; starting api and worker`);
    await this.platform.start({ nodeOptions: this.ctx.nodeOptions });
    this.apiStartMs = this.platform.apiStartMs;
    this.catalogLoadMs = this.platform.catalogLoadMs;
    const key = await this.platform.http.expect('POST', `/api/v1/tenants/${tenantIdOf(TENANT)}/api-keys`, { name: `bench-${Date.now()}` }, [201]);
    this.tenantKey = key.key;
  }

  /** Up to `n` ids of seeded servers the bench tenant may see, spread over the whole registry. */
  visibleServerIds(n) {
    const out = [];
    const seeded = this.seededTo ?? 0;
    const step = Math.max(1, Math.floor(seeded / (n * 1.6)));
    for (let s = 0; s < seeded && out.length < n; s += step) {
      const owner = ownerOf(s, TENANTS);
      if (owner === null || owner === TENANT) out.push(serverIdOf(s));
    }
    return out;
  }

  async close() {
    if (this.platform) await this.platform.stop();
    if (this.database) await dropDatabase(this.database.name).catch(() => undefined);
    if (this.prefix) await deleteRedisPrefix(this.prefix).catch(() => undefined);
  }
}

module.exports = { SeededPlatform, TOOLS_PER_SERVER, TENANTS, TENANT };
