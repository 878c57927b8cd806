'use strict';
// Deterministic ids of the seeded registry, shared by the seeding process and the sections that query it.
const crypto = require('node:crypto');

/** A version-4-shaped uuid derived from `text`. */
function uuidOf(text) {
  const h = crypto.createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const tenantIdOf = (k) => uuidOf(`bench-tenant-${k}`);
const serverIdOf = (s) => uuidOf(`bench-server-${s}`);
/** The stored id of an evaluation-set server (bench/eval/servers.json `id`). */
const evalServerIdOf = (id) => uuidOf(`bench-eval-${id}`);
/** Seeded server `s` belongs to the platform when s % 3 == 0, else to tenant s % tenants. */
const ownerOf = (s, tenants) => (s % 3 === 0 ? null : s % tenants);

module.exports = { uuidOf, tenantIdOf, serverIdOf, ownerOf, evalServerIdOf };
