import { parseBearerChallenge } from './www-authenticate';

describe('parseBearerChallenge', () => {
  it('reads resource_metadata, scope and error, quoted or bare', () => {
    expect(
      parseBearerChallenge('Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"'),
    ).toEqual({ resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp', scope: ['files:read', 'files:write'], error: 'insufficient_scope' });
    expect(parseBearerChallenge('Bearer error=invalid_token')).toEqual({ error: 'invalid_token' });
    expect(parseBearerChallenge('bearer realm="x"')).toEqual({});
  });

  it('finds the Bearer challenge among others and ignores other schemes', () => {
    expect(parseBearerChallenge('Basic realm="a", Bearer scope="x"')).toEqual({ scope: ['x'] });
    expect(parseBearerChallenge('Basic realm="a"')).toBeUndefined();
    expect(parseBearerChallenge(null)).toBeUndefined();
  });

  it('keeps the first value of a parameter given twice and unescapes quoted text', () => {
    expect(parseBearerChallenge('Bearer scope="a", scope="b", error="x\\"y"')).toEqual({ scope: ['a'], error: 'x"y' });
  });
});
