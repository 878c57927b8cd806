import { ConfigError } from '@app/config';
import { parseExternalServersFile } from './external-servers.file';

const ok = { name: 'legacy', transport: 'streamable-http', url: 'https://legacy.example.com/mcp' };

describe('parseExternalServersFile', () => {
  it('reads an array of registrations', () => {
    const entries = parseExternalServersFile(
      JSON.stringify([ok, { name: 'tool', transport: 'stdio', command: 'node', args: ['s.js'], credentials: { env: 'LEGACY_TOKEN' } }]),
      ['LEGACY_TOKEN'],
    );
    expect(entries.map((e) => e.name)).toEqual(['legacy', 'tool']);
    expect(entries[1].credentials).toEqual({ env: 'LEGACY_TOKEN' });
  });

  it.each([
    ['not json', 'is not valid JSON'],
    ['{}', 'must hold a JSON array'],
    ['[1]', 'entry 0 must be an object'],
    [JSON.stringify([{ ...ok, kind: 'MCP_SERVER_KIND_EXTERNAL' }]), 'entry 0: kind is not part of an external registration'],
    [JSON.stringify([{ ...ok, tenantId: '7d0c1a3e-9a55-4c2e-8f0e-2a7c1f6d9b10' }]), 'tenantId is not part'],
    [JSON.stringify([{ ...ok, url: 'ftp://x' }]), 'entry 0 ("legacy"): url:'],
    [JSON.stringify([{ ...ok, surprise: 1 }]), 'surprise'],
    [JSON.stringify([{ name: 'p', transport: 'in-process' }]), 'transport:'],
    [JSON.stringify([{ name: 'p', transport: 'stdio' }]), 'command: is required'],
    [JSON.stringify([ok, ok]), 'entry 1 ("legacy"): name: is used by an earlier entry'],
    [JSON.stringify([{ ...ok, credentials: { env: 'X', bearerToken: 'hunter2-secret' } }]), 'give either env or bearerToken/headers'],
    [JSON.stringify([{ ...ok, credentials: { env: 'CREDENTIALS_KEY' } }]), 'entry 0 ("legacy"): credentials.env: CREDENTIALS_KEY is a setting of the registry itself'],
    [JSON.stringify([{ ...ok, credentials: { env: 'OTHER_TOKEN' } }]), 'credentials.env: OTHER_TOKEN is not a variable meant for server credentials'],
  ])('refuses %s', (text, message) => {
    const err = (() => {
      try {
        parseExternalServersFile(text, ['LEGACY_TOKEN']);
      } catch (e) {
        return e as Error;
      }
      throw new Error('accepted');
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('EXTERNAL_SERVERS_FILE: ');
    expect(err.message).toContain(message);
    expect(err.message).not.toContain('hunter2-secret');
  });
});
