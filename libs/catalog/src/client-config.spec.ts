import { convertClientEntry, guessTransport } from './client-config';
import { instantiate } from './instantiate';
import { validateServerJson } from './server-json.validator';

describe('client-config entries', () => {
  it('guesses the transport as Claude Desktop, Cursor and VS Code do', () => {
    expect(guessTransport({ command: 'npx' })).toBe('stdio');
    expect(guessTransport({ url: 'https://x.example/mcp' })).toBe('streamable-http');
    expect(guessTransport({ url: 'https://x.example/sse' })).toBe('sse');
    expect(guessTransport({ url: 'https://x.example/sse/' })).toBe('sse');
    expect(guessTransport({ url: 'https://x.example/sse-events' })).toBe('streamable-http');
    expect(guessTransport({ type: 'http', url: 'https://x.example/sse' })).toBe('streamable-http');
    expect(guessTransport({ type: 'sse', url: 'https://x.example/mcp' })).toBe('sse');
    expect(guessTransport({ type: 'stdio', command: 'x' })).toBe('stdio');
    expect(guessTransport({ type: 'websocket', url: 'wss://x' })).toBeUndefined();
    expect(guessTransport({})).toBeUndefined();
  });

  it('makes valid server.json of every runner, and instantiating it gives back the same command line', () => {
    const cases: [string, string[]][] = [
      ['npx', ['-y', '@scope/server@1.2.3', '--root', '/data']],
      ['uvx', ['mcp-server-git==0.6.2', '--repository', '/repo']],
      ['docker', ['run', '-i', '--rm', 'mcp/fetch:1.0']],
      ['dnx', ['Contoso.Mcp@2.0.0', '--yes']],
    ];
    for (const [command, args] of cases) {
      const { server, error } = convertClientEntry(command, { command, args });
      expect(error).toBeUndefined();
      expect(validateServerJson(server)).toEqual([]);
      const made = instantiate(server!, { package: 0 }, {});
      expect(made.errors).toEqual([]);
      expect([made.registration!.command, ...made.registration!.args!]).toEqual([command, ...args]);
    }
  });

  it('refuses an entry with neither command nor url, naming it', () => {
    expect(convertClientEntry('broken', { args: [] }).error).toEqual({ field: 'broken', message: 'has neither a command nor a url (or an unknown type)' });
  });
});
