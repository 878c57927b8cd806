import { hostAllowed, hostName, isLoopback, originAllowed } from './mcp-request-policy';

describe('the /mcp request policy', () => {
  const loopback = { host: '127.0.0.1', allowedHosts: [] as string[] };
  const public_ = { host: '0.0.0.0', allowedHosts: [] as string[] };

  it('reads host names from Host headers', () => {
    expect(hostName('LocalHost:3000')).toBe('localhost');
    expect(hostName('[::1]:3000')).toBe('::1');
    expect(hostName('registry.example.com')).toBe('registry.example.com');
    for (const bad of [undefined, '', 'a b', 'user@host', 'host:port', '[zz]']) expect(hostName(bad)).toBeUndefined();
  });

  it('knows loopback names and addresses', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]', 'app.localhost']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '10.0.0.1', 'evil.example', 'localhost.evil.example']) expect(isLoopback(h)).toBe(false);
  });

  it('accepts only loopback host names when bound to loopback (DNS rebinding), plus ALLOWED_HOSTS', () => {
    expect(hostAllowed('127.0.0.1:3000', loopback)).toBe(true);
    expect(hostAllowed('localhost:3000', loopback)).toBe(true);
    expect(hostAllowed('evil.example:3000', loopback)).toBe(false);
    expect(hostAllowed(undefined, loopback)).toBe(false);
    expect(hostAllowed('registry.internal', { host: '127.0.0.1', allowedHosts: ['registry.internal'] })).toBe(true);
  });

  it('accepts any host name on a public bind unless ALLOWED_HOSTS narrows it', () => {
    expect(hostAllowed('registry.example.com', public_)).toBe(true);
    const narrowed = { host: '0.0.0.0', allowedHosts: ['registry.example.com'] };
    expect(hostAllowed('registry.example.com:443', narrowed)).toBe(true);
    expect(hostAllowed('localhost:3000', narrowed)).toBe(true);
    expect(hostAllowed('evil.example', narrowed)).toBe(false);
  });

  it('lets programs (no Origin), the same origin and CORS_ORIGINS through, and no other page', () => {
    const config = { corsOrigins: ['https://app.example.com/'] };
    expect(originAllowed(undefined, '127.0.0.1:3000', config)).toBe(true);
    expect(originAllowed('http://127.0.0.1:3000', '127.0.0.1:3000', config)).toBe(true);
    expect(originAllowed('https://app.example.com', '127.0.0.1:3000', config)).toBe(true);
    expect(originAllowed('https://evil.example', '127.0.0.1:3000', config)).toBe(false);
    expect(originAllowed('http://127.0.0.1:4000', '127.0.0.1:3000', config)).toBe(false);
    expect(originAllowed('null', '127.0.0.1:3000', config)).toBe(false);
    expect(originAllowed('file://x', '127.0.0.1:3000', config)).toBe(false);
  });
});
