import { randomUUID } from 'node:crypto';
import type { TestApp } from './app';
import { makeTenant } from './tenants';

/** Tenants are made as the other tests make them (re-exported for the discovery tests, which import them from here). */
export { makeTenant };

type StoredServer = NonNullable<Awaited<ReturnType<TestApp['runtime']['prisma']['server']['findUnique']>>>;

/**
 * A server row as the database holds it, with its discovery row's columns beside it under the names they had on
 * the server row (the discovery tests read the truth, not a presentation).
 */
export type ServerRow = StoredServer & {
  discoveryRequestedAt: Date | null;
  nextDiscoveryAt: Date | null;
  discoveryLeaseOwner: string | null;
  discoveryLeaseUntil: Date | null;
  retryReason: string | null;
};

/** Polls until `probe` returns something truthy; fails naming `what` and the last value after the deadline. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const value = await probe();
    if (value) return value;
    last = value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function serverRow(t: TestApp, id: string): Promise<ServerRow | null> {
  const row = await t.runtime.prisma.server.findUnique({ where: { id }, include: { discovery: true } });
  if (!row) return null;
  const { discovery: d, ...server } = row;
  return {
    ...server,
    discoveryRequestedAt: d?.requestedAt ?? null,
    nextDiscoveryAt: d?.nextAt ?? null,
    discoveryLeaseOwner: d?.leaseOwner ?? null,
    discoveryLeaseUntil: d?.leaseUntil ?? null,
    retryReason: d?.retryReason ?? null,
  };
}

const SETTLED = new Set(['CONNECTED', 'ERROR', 'DISCONNECTED']);

/** Waits until the server's discovery has ended (a settled status, no lease held). */
export function settled(t: TestApp, id: string, timeoutMs = 30_000): Promise<ServerRow> {
  return waitFor(
    `server ${id} to settle`,
    async () => {
      const row = await serverRow(t, id);
      return row && SETTLED.has(row.status) && row.discoveryLeaseOwner === null ? row : undefined;
    },
    timeoutMs,
  );
}

/** Registers a server through the REST API (as the admin unless a key is given); fails on anything but 201. */
export async function registerServer(t: TestApp, body: Record<string, unknown>, key?: string): Promise<{ id: string } & Record<string, unknown>> {
  const res = await t.request('POST', '/api/v1/servers', { body, key });
  if (res.status !== 201) throw new Error(`register ${JSON.stringify(body.name)}: ${res.status} ${res.text}`);
  return res.body;
}

/** A tenant made as makeTenant makes it, as the principal a service is called with (and its key, for the API). */
export async function tenantPrincipal(t: TestApp): Promise<{ type: 'tenant'; tenantId: string; keyId: string; key: string }> {
  const { tenantId, key } = await makeTenant(t);
  return { type: 'tenant', tenantId, keyId: `spec-${tenantId.slice(0, 8)}`, key };
}

/**
 * Writes a server row directly, for what the REST API does not register
 * (INTERNAL servers come from the deployment, not from a request).
 */
export async function insertServer(
  t: TestApp,
  fields: { name: string; kind: 'INTERNAL' | 'BUILT_IN' | 'EXTERNAL'; transport: 'IN_PROCESS' | 'STDIO' | 'STREAMABLE_HTTP' | 'SSE'; url?: string; command?: string; args?: string[] },
): Promise<string> {
  const id = randomUUID();
  await t.runtime.prisma.server.create({
    data: {
      id,
      tenantId: null,
      ownerScope: 'platform',
      name: fields.name,
      kind: fields.kind,
      transport: fields.transport,
      url: fields.url ?? null,
      command: fields.command ?? null,
      args: fields.args ?? [],
      status: 'DISCOVERING',
    },
  });
  // Its discovery row was made with it (by the database): asked for now.
  await t.runtime.prisma.serverDiscovery.update({ where: { serverId: id }, data: { requestedAt: new Date() } });
  return id;
}

/** The discovery runs of a server, oldest first. */
export function runsOf(t: TestApp, id: string) {
  return t.runtime.prisma.discoveryRun.findMany({ where: { serverId: id }, orderBy: { startedAt: 'asc' } });
}

/** The stored tools of a server, in listing order. */
export function toolsOf(t: TestApp, id: string) {
  return t.runtime.prisma.tool.findMany({ where: { serverId: id }, orderBy: { position: 'asc' } });
}
