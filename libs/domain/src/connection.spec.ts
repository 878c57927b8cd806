import { CONNECTION_FIELDS, connectionFingerprint, connectionOf, ServerConnection } from './connection';
import { TransportType } from './enums';

const base = connectionOf(
  {
    transport: TransportType.STREAMABLE_HTTP,
    url: 'https://a.example.com/mcp',
    command: null,
    args: [],
    env: { A: '1', B: '2' },
    headers: { 'x-team': 'blue' },
    auth: { clientId: 'c', scopes: ['read'], hasClientSecret: true },
    appSlug: null,
    accountId: null,
  },
  { credentialsCipher: 'sealed-1', credentialsEnv: null },
);

/** One different value for each part of a connection. */
const changed: { [K in keyof ServerConnection]: ServerConnection[K] } = {
  transport: TransportType.SSE,
  url: 'https://b.example.com/mcp',
  command: 'node',
  args: ['server.js'],
  env: { A: '1', B: '3' },
  headers: { 'x-team': 'red' },
  credentials: ['sealed-2', null],
  auth: { clientId: 'c', scopes: ['read'], hasClientSecret: false },
  integration: { appSlug: 'slack', accountId: 'apn_1' },
};

describe('the connection of a server (how it is reached)', () => {
  it.each(Object.keys(changed) as (keyof ServerConnection)[])('has a new fingerprint when %s changes', (part) => {
    expect(connectionFingerprint({ ...base, [part]: changed[part] })).not.toBe(connectionFingerprint(base));
  });

  it('has the same fingerprint for the same connection, whatever the order of its env and headers', () => {
    const reordered = { ...base, env: { B: '2', A: '1' }, auth: { hasClientSecret: true, scopes: ['read'], clientId: 'c' } };
    expect(connectionFingerprint(reordered)).toBe(connectionFingerprint(base));
  });

  it('names as registration fields exactly the parts a registration can change (the integration account never changes)', () => {
    const parts = Object.keys(base).filter((k) => k !== 'integration');
    expect([...CONNECTION_FIELDS].sort()).toEqual(parts.sort());
  });
});
