import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from 'node:net';
import { OutboundBlockedError, OutboundPolicy } from '../outbound-policy';
import { PooledHttpError } from '../pool/pooled-http.transport';
import { classifyError, redactor } from './classify-error';
import { McpFailure, McpFailureCode } from './mcp-failure';

/** The error fetch really throws for a refused connection (undici wraps the socket error as `cause`). */
async function refused(): Promise<unknown> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
}

describe('classifying failures', () => {
  it.each([
    [401, McpFailureCode.Unauthorized, false],
    [403, McpFailureCode.Forbidden, false],
    [404, McpFailureCode.NotFound, false],
    [405, McpFailureCode.HttpRejected, false],
    [429, McpFailureCode.ServerUnavailable, true],
    [502, McpFailureCode.ServerUnavailable, true],
    [503, McpFailureCode.ServerUnavailable, true],
  ])('HTTP %i from the SDK transports is %s (transient: %s)', (status, code, transient) => {
    for (const err of [new StreamableHTTPError(status, 'Error POSTing to endpoint: nope'), new SseError(status, 'Non-200 status code', {} as never)]) {
      const f = classifyError(err, 'initialize');
      expect([f.code, f.transient, f.httpStatus]).toEqual([code, transient, status]);
    }
  });

  it('reads the JSON-RPC error inside an HTTP error body: a server that refuses the revision', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 0, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2027-01-01'], requested: '2025-11-25' } } });
    const f = classifyError(new StreamableHTTPError(400, `Error POSTing to endpoint: ${body}`), 'initialize');
    expect(f.code).toBe(McpFailureCode.UnsupportedProtocol);
    expect(f.message).toMatch(/^no protocol revision in common: the server speaks 2027-01-01; the registry speaks 2024-11-05/);
    expect(f.transient).toBe(false);
  });

  it('reads a 404 for an unknown session as a dropped session (transient), not as a timeout or a wrong URL', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    for (const err of [
      new StreamableHTTPError(404, `Error POSTing to endpoint: ${body}`),
      new PooledHttpError(404, 'Error POSTing to endpoint (HTTP 404): the server does not know this session'),
    ]) {
      expect(classifyError(err, 'tools/list page 2')).toMatchObject({
        code: McpFailureCode.ConnectionReset,
        transient: true,
        httpStatus: 404,
        message: 'the server no longer knows the session (it restarted or dropped it) during tools/list page 2',
      });
    }
    // A 404 that says nothing of a session is still a wrong URL.
    expect(classifyError(new StreamableHTTPError(404, 'Error POSTing to endpoint: Not Found'), 'initialize').code).toBe(McpFailureCode.NotFound);
  });

  it('tells network failures apart: refused and reset are transient, an unknown host is not', async () => {
    expect(classifyError(await refused(), 'initialize')).toMatchObject({ code: McpFailureCode.ConnectionRefused, transient: true });
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(classifyError(new TypeError('fetch failed', { cause: reset }), 'tools/list page 2')).toMatchObject({
      code: McpFailureCode.ConnectionReset,
      message: 'the server reset the connection (during tools/list page 2)',
    });
    const nx = Object.assign(new Error('getaddrinfo ENOTFOUND nope.invalid'), { code: 'ENOTFOUND' });
    expect(classifyError(new TypeError('fetch failed', { cause: nx }), 'initialize')).toMatchObject({ code: McpFailureCode.HostNotFound, transient: false });
  });

  it('names a JSON-RPC error answer without the SDK prefix, and treats it as the server deliberate answer', () => {
    const f = classifyError(new McpError(-32000, 'catalogue unavailable'), 'tools/list');
    expect(f).toMatchObject({ code: McpFailureCode.RemoteError, transient: false, message: 'the server answered tools/list with JSON-RPC error -32000: catalogue unavailable' });
    expect(classifyError(new McpError(ErrorCode.RequestTimeout, 'Request timed out'), 'tools/list')).toMatchObject({ code: McpFailureCode.Timeout, transient: true });
    expect(classifyError(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), 'initialize')).toMatchObject({
      code: McpFailureCode.ConnectionReset,
      transient: true,
    });
  });

  it('understands the 2.x SDK errors too', () => {
    expect(classifyError(new SdkHttpError(SdkErrorCode.SendFailed, 'HTTP 401', { status: 401 } as never), 'server/discover').code).toBe(McpFailureCode.Unauthorized);
    expect(classifyError(new SdkError(SdkErrorCode.RequestTimeout, 'timed out'), 'tools/list').code).toBe(McpFailureCode.Timeout);
    expect(classifyError(new SdkError(SdkErrorCode.InvalidResult, 'bad'), 'tools/list').code).toBe(McpFailureCode.ProtocolViolation);
  });

  it('reports invalid JSON as a protocol violation and the outbound policy as itself', () => {
    let syntax: unknown;
    try {
      JSON.parse('{not json');
    } catch (e) {
      syntax = e;
    }
    expect(classifyError(syntax, 'initialize')).toMatchObject({ code: McpFailureCode.ProtocolViolation, message: "the server's answer to initialize is not valid JSON" });
    let blocked: unknown;
    try {
      new OutboundPolicy([]).checkUrl('https://169.254.169.254/latest');
    } catch (e) {
      blocked = e;
    }
    expect(blocked).toBeInstanceOf(OutboundBlockedError);
    expect(classifyError(new TypeError('fetch failed', { cause: blocked }), 'initialize')).toMatchObject({ code: McpFailureCode.OutboundBlocked, transient: false });
  });

  it('keeps a McpFailure as it is, and treats what it cannot explain as transient', () => {
    const own = new McpFailure(McpFailureCode.LimitExceeded, 'too much');
    expect(classifyError(new Error('wrapped', { cause: own }), 'x')).toBe(own);
    expect(classifyError(new Error('something odd'), 'tools/list')).toMatchObject({ code: McpFailureCode.Unexpected, transient: true });
  });

  it('removes every secret value from the texts it keeps', () => {
    const redact = redactor(['tok-123456', 'hdr-abcdef', 'ab']);
    // A secret of two characters is redacted where it stands alone, not inside words ("about", "table").
    expect(redact('Bearer tok-123456 and hdr-abcdef, ab goes, about and table stay')).toBe('Bearer [redacted] and [redacted], [redacted] goes, about and table stay');
    const f = classifyError(new McpError(-32000, 'bad token tok-123456'), 'initialize', redact);
    expect(f.message).not.toContain('tok-123456');
  });
});
