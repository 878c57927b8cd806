import { ForbiddenError, NotFoundError, Principal } from '@app/domain';
import { startTestApp, TestApp } from '../../../../test/support/app';
import { serverRow, tenantPrincipal } from '../../../../test/support/servers';
import { CreateServerDto, UpdateServerDto } from './server.dto';
import { ServerService } from './server.service';

/**
 * The rules of registering and changing a server, read off the service itself (no HTTP): who owns what, what is
 * stored of the credentials, and which changes ask for a discovery. On the real database; no worker runs, so
 * what the service asked for stays visible.
 */
describe('ServerService', () => {
  let t: TestApp;
  let servers: ServerService;
  let tenant: Principal & { type: 'tenant' };
  let other: Principal & { type: 'tenant' };
  const admin: Principal = { type: 'admin', keyId: 'admin' };

  const create = (principal: Principal, body: Record<string, unknown>) => servers.create(principal, body as unknown as CreateServerDto);
  const update = (principal: Principal, id: string, body: Record<string, unknown>) => servers.update(principal, id, body as unknown as UpdateServerDto);
  const remote = (name: string, extra: Record<string, unknown> = {}) => ({ name, transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp', ...extra });

  beforeAll(async () => {
    t = await startTestApp({ worker: false, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    servers = t.app.get(ServerService);
    [tenant, other] = [await tenantPrincipal(t), await tenantPrincipal(t)];
  });
  afterAll(async () => {
    await t?.close();
  });

  it("registers a tenant's server as CUSTOM, its own, DISCOVERING with a discovery asked for on the database's clock", async () => {
    const before = (await t.runtime.prisma.$queryRaw<{ now: Date }[]>`SELECT now() AS now`)[0].now;
    const server = await create(tenant, remote('mine'));
    expect(server).toMatchObject({ kind: 'MCP_SERVER_KIND_CUSTOM', tenantId: tenant.tenantId, status: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING', statusReason: 'discovery queued' });
    const row = await serverRow(t, server.id);
    expect(row!.discoveryRequestedAt!.getTime()).toBeGreaterThanOrEqual(before.getTime());
  });

  it('keeps credentials sealed under the server id and never answers them', async () => {
    const server = await create(tenant, remote('with-token', { credentials: { bearerToken: 'spec-secret-token-1234' } }));
    expect(JSON.stringify(server)).not.toContain('spec-secret-token-1234');
    expect(server.hasCredentials).toBe(true);
    const row = await serverRow(t, server.id);
    expect(row!.credentialsCipher).toMatch(/^v1\./);
    expect(row!.credentialsCipher).not.toContain('spec-secret-token-1234');
  });

  it('registers a disabled server DISCONNECTED and asks for no discovery', async () => {
    const server = await create(tenant, remote('off', { enabled: false }));
    expect([server.status, server.statusReason]).toEqual(['MCP_SERVER_CONNECTION_STATUS_DISCONNECTED', 'disabled']);
    expect((await serverRow(t, server.id))!.discoveryRequestedAt).toBeNull();
  });

  it("refuses a tenant the platform's kinds, and lets the admin register BUILT_IN", async () => {
    await expect(create(tenant, remote('platform', { kind: 'MCP_SERVER_KIND_BUILT_IN' }))).rejects.toBeInstanceOf(ForbiddenError);
    await expect(create(tenant, remote('internal', { kind: 'MCP_SERVER_KIND_INTERNAL' }))).rejects.toBeInstanceOf(ForbiddenError);
    const builtIn = await create(admin, remote('platform', { kind: 'MCP_SERVER_KIND_BUILT_IN' }));
    expect([builtIn.kind, builtIn.tenantId]).toEqual(['MCP_SERVER_KIND_BUILT_IN', null]);
    // A tenant sees the platform's server, and may not change it.
    expect((await servers.get(tenant, builtIn.id)).id).toBe(builtIn.id);
    await expect(update(tenant, builtIn.id, { name: 'taken-over' })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("answers another tenant's server as not found, for reads and writes alike", async () => {
    const server = await create(tenant, remote('private'));
    await expect(servers.get(other, server.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(update(other, server.id, { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(servers.delete(other, server.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await serverRow(t, server.id)).not.toBeNull();
  });

  it('asks for a discovery again when how the server is reached changes, not for a label', async () => {
    const server = await create(tenant, remote('changing'));
    const asked = (await serverRow(t, server.id))!.discoveryRequestedAt!;
    await t.runtime.prisma.server.update({ where: { id: server.id }, data: { status: 'CONNECTED', statusReason: null } });

    const relabelled = await update(tenant, server.id, { metadata: { team: 'search' } });
    expect(relabelled.status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    expect((await serverRow(t, server.id))!.discoveryRequestedAt).toEqual(asked);

    const moved = await update(tenant, server.id, { url: 'http://127.0.0.1:10/mcp' });
    expect([moved.status, moved.statusReason]).toEqual(['MCP_SERVER_CONNECTION_STATUS_DISCOVERING', 'discovery queued']);
    expect((await serverRow(t, server.id))!.discoveryRequestedAt!.getTime()).toBeGreaterThan(asked.getTime());
  });

  it('disabling a server makes it DISCONNECTED; enabling it again asks for a discovery', async () => {
    const server = await create(tenant, remote('toggled'));
    const off = await update(tenant, server.id, { enabled: false });
    expect([off.status, off.statusReason]).toEqual(['MCP_SERVER_CONNECTION_STATUS_DISCONNECTED', 'disabled']);
    const on = await update(tenant, server.id, { enabled: true });
    expect([on.status, on.statusReason]).toEqual(['MCP_SERVER_CONNECTION_STATUS_DISCOVERING', 'discovery queued']);
  });
});
