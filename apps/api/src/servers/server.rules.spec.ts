import { ForbiddenError, InvalidInputError, Principal, ServerKind, ServerRecord, TransportType } from '@app/domain';
import {
  assertOwnerOrAdmin,
  assertWritable,
  connectionErrors,
  credentialsErrors,
  EXTERNAL_REFUSAL,
  INTERNAL_REFUSAL,
  resolveCreateTarget,
  splitCredentials,
} from './server.rules';

const admin: Principal = { type: 'admin', keyId: 'admin' };
const tenant: Principal = { type: 'tenant', tenantId: 't1', keyId: 'k1' };
const remote = { transport: TransportType.SSE, url: 'https://x.example.com', command: null, args: [], env: {} };

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not throw');
}

describe('resolveCreateTarget', () => {
  it('gives a tenant CUSTOM servers of its own', () => {
    expect(resolveCreateTarget(tenant, undefined, undefined)).toEqual({ kind: ServerKind.CUSTOM, tenantId: 't1' });
    expect(resolveCreateTarget(tenant, 3, undefined)).toEqual({ kind: ServerKind.CUSTOM, tenantId: 't1' });
  });

  it('gives the admin BUILT_IN by default, CUSTOM for a named tenant', () => {
    expect(resolveCreateTarget(admin, undefined, undefined)).toEqual({ kind: ServerKind.BUILT_IN, tenantId: null });
    expect(resolveCreateTarget(admin, undefined, 't9')).toEqual({ kind: ServerKind.CUSTOM, tenantId: 't9' });
    expect(thrown(() => resolveCreateTarget(admin, 'MCP_SERVER_KIND_CUSTOM', undefined))).toBeInstanceOf(InvalidInputError);
    expect(thrown(() => resolveCreateTarget(admin, 'BUILT_IN', 't9'))).toBeInstanceOf(InvalidInputError);
  });

  it('refuses the kinds the API does not write, for everyone', () => {
    for (const p of [admin, tenant]) {
      expect(thrown(() => resolveCreateTarget(p, 1, undefined)).message).toBe(INTERNAL_REFUSAL);
      expect(thrown(() => resolveCreateTarget(p, 'MCP_SERVER_KIND_EXTERNAL', undefined)).message).toBe(EXTERNAL_REFUSAL);
      expect(thrown(() => resolveCreateTarget(p, 5, undefined))).toBeInstanceOf(InvalidInputError);
    }
  });

  it('answers a tenant asking for BUILT_IN or another owner with 403', () => {
    expect(thrown(() => resolveCreateTarget(tenant, 2, undefined))).toBeInstanceOf(ForbiddenError);
    expect(thrown(() => resolveCreateTarget(tenant, undefined, 't2'))).toBeInstanceOf(ForbiddenError);
  });
});

describe('connectionErrors', () => {
  it('keeps tenant servers remote', () => {
    for (const kind of [ServerKind.CUSTOM, ServerKind.INTEGRATION]) {
      expect(connectionErrors(kind, { ...remote, transport: TransportType.STDIO, url: null, command: 'sh' })[0].message).toContain(
        "would run a program on the platform's hosts",
      );
      expect(connectionErrors(kind, remote)).toEqual([]);
    }
  });

  it('reserves in-process to INTERNAL and matches fields to the transport', () => {
    expect(connectionErrors(ServerKind.BUILT_IN, { ...remote, transport: TransportType.IN_PROCESS, url: null })[0].field).toBe('transport');
    expect(connectionErrors(ServerKind.INTERNAL, { ...remote, transport: TransportType.IN_PROCESS, url: null })).toEqual([]);
    expect(connectionErrors(ServerKind.BUILT_IN, { ...remote, url: null, command: 'x', args: ['a'], env: { A: '1' } }).map((e) => e.field)).toEqual([
      'url',
      'command',
      'args',
      'env',
    ]);
    expect(connectionErrors(ServerKind.BUILT_IN, { ...remote, transport: TransportType.STDIO }).map((e) => e.field)).toEqual(['command', 'url']);
  });
});

describe('credentialsErrors and splitCredentials', () => {
  it('allows an environment reference only on platform servers, and alone', () => {
    expect(credentialsErrors(ServerKind.BUILT_IN, { env: 'MCP_SECRET_TOKEN' }, [])).toEqual([]);
    expect(credentialsErrors(ServerKind.EXTERNAL, { env: 'MCP_SECRET_TOKEN' }, [])).toEqual([]);
    expect(credentialsErrors(ServerKind.CUSTOM, { env: 'MCP_SECRET_TOKEN' }, [])[0].field).toBe('credentials.env');
    expect(credentialsErrors(ServerKind.BUILT_IN, { env: 'MCP_SECRET_TOKEN', bearerToken: 'x' }, [])[0].field).toBe('credentials');
  });

  it('allows only variables meant for server credentials: MCP_SECRET_*, or listed; never a setting of the registry', () => {
    expect(credentialsErrors(ServerKind.BUILT_IN, { env: 'VENDOR_TOKEN' }, ['VENDOR_TOKEN'])).toEqual([]);
    expect(credentialsErrors(ServerKind.BUILT_IN, { env: 'VENDOR_TOKEN' }, [])).toEqual([
      { field: 'credentials.env', message: 'VENDOR_TOKEN is not a variable meant for server credentials: name one that starts with MCP_SECRET_, or list it in CREDENTIAL_ENV_ALLOW' },
    ]);
    expect(credentialsErrors(ServerKind.BUILT_IN, { env: 'MCP_SECRET_' }, [])[0].field).toBe('credentials.env');
    for (const own of ['CREDENTIALS_KEY', 'ADMIN_API_KEY', 'DATABASE_URL', 'REDIS_URL', 'PIPEDREAM_CLIENT_SECRET', 'TEST_DATABASE_URL', 'credentials_key']) {
      expect(credentialsErrors(ServerKind.EXTERNAL, { env: own }, [own])).toEqual([
        { field: 'credentials.env', message: `${own} is a setting of the registry itself; a server's credentials cannot name it` },
      ]);
    }
  });

  it('refuses empty credentials and a doubled Authorization', () => {
    expect(credentialsErrors(ServerKind.CUSTOM, {}, [])[0].field).toBe('credentials');
    expect(credentialsErrors(ServerKind.CUSTOM, { bearerToken: 'a', headers: { authorization: 'b' } }, [])[0].field).toBe('credentials.headers');
    expect(credentialsErrors(ServerKind.CUSTOM, null, [])).toEqual([]);
  });

  it('splits secrets from references', () => {
    expect(splitCredentials({ env: 'T' })).toEqual({ secret: null, env: 'T' });
    expect(splitCredentials({ bearerToken: 'b', headers: { 'X-K': 'v' } })).toEqual({ secret: { bearerToken: 'b', headers: { 'X-K': 'v' } }, env: null });
  });
});

describe('who may write what', () => {
  const server = (kind: ServerKind, tenantId: string | null) => ({ kind, tenantId }) as ServerRecord;

  it('keeps INTERNAL and EXTERNAL read-only, BUILT_IN to the admin', () => {
    for (const p of [admin, tenant]) {
      expect(thrown(() => assertWritable(p, server(ServerKind.INTERNAL, null))).message).toBe(INTERNAL_REFUSAL);
      expect(thrown(() => assertWritable(p, server(ServerKind.EXTERNAL, null))).message).toBe(EXTERNAL_REFUSAL);
    }
    expect(() => assertWritable(admin, server(ServerKind.BUILT_IN, null))).not.toThrow();
    expect(thrown(() => assertWritable(tenant, server(ServerKind.BUILT_IN, null)))).toBeInstanceOf(ForbiddenError);
    expect(() => assertWritable(tenant, server(ServerKind.CUSTOM, 't1'))).not.toThrow();
  });

  it("keeps discovery of the platform's servers to the admin", () => {
    expect(thrown(() => assertOwnerOrAdmin(tenant, server(ServerKind.BUILT_IN, null), 'x'))).toBeInstanceOf(ForbiddenError);
    expect(() => assertOwnerOrAdmin(tenant, server(ServerKind.CUSTOM, 't1'), 'x')).not.toThrow();
    expect(() => assertOwnerOrAdmin(admin, server(ServerKind.EXTERNAL, null), 'x')).not.toThrow();
  });
});
