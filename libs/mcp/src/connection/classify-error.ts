import { McpFailure, McpFailureCode } from './mcp-failure';
import { Redactor, redactor } from './redaction';

export { Redactor, redactor };

const HTTP_MESSAGES: Record<number, [McpFailureCode, string]> = {
  401: [McpFailureCode.Unauthorized, 'the server answered 401 Unauthorized: the credentials are missing, wrong or expired'],
  403: [McpFailureCode.Forbidden, 'the server answered 403 Forbidden: the credentials are not allowed to use this server'],
  404: [McpFailureCode.NotFound, 'the server answered 404 Not Found: check the URL, path included'],
};

const ERRNO: Record<string, [McpFailureCode, string]> = {
  ECONNREFUSED: [McpFailureCode.ConnectionRefused, 'the connection was refused: nothing listens at that address and port'],
  ECONNRESET: [McpFailureCode.ConnectionReset, 'the server reset the connection'],
  EPIPE: [McpFailureCode.ConnectionReset, 'the server closed the connection'],
  ECONNABORTED: [McpFailureCode.ConnectionReset, 'the connection was aborted'],
  UND_ERR_SOCKET: [McpFailureCode.ConnectionReset, 'the server closed the connection in the middle of an answer'],
  UND_ERR_CLOSED: [McpFailureCode.ConnectionReset, 'the server closed the connection'],
  ETIMEDOUT: [McpFailureCode.Timeout, 'the connection timed out'],
  UND_ERR_CONNECT_TIMEOUT: [McpFailureCode.Timeout, 'the connection timed out'],
  UND_ERR_HEADERS_TIMEOUT: [McpFailureCode.Timeout, 'the server did not answer in time'],
  UND_ERR_BODY_TIMEOUT: [McpFailureCode.Timeout, 'the server stopped sending in the middle of an answer'],
  EHOSTUNREACH: [McpFailureCode.ConnectionRefused, 'the host is unreachable'],
  ENETUNREACH: [McpFailureCode.ConnectionRefused, 'the network is unreachable'],
  ENOTFOUND: [McpFailureCode.HostNotFound, 'the host name does not resolve'],
  EAI_AGAIN: [McpFailureCode.DependencyUnavailable, 'the host name could not be resolved right now (DNS)'],
};

function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  let current: unknown = err;
  for (let i = 0; i < 6 && current; i++) {
    out.push(current);
    if (current instanceof AggregateError) out.push(...current.errors);
    current = (current as { cause?: unknown }).cause;
  }
  return out;
}

function httpStatusOf(e: unknown): number | undefined {
  const x = e as { name?: string; constructor?: { name?: string }; code?: unknown; status?: unknown; message?: unknown };
  const ctor = x?.constructor?.name ?? x?.name;
  if ((ctor === 'StreamableHTTPError' || ctor === 'SseError') && typeof x.code === 'number' && x.code >= 100 && x.code < 600) return x.code;
  if (typeof x?.status === 'number' && x.status >= 100 && x.status < 600) return x.status;
  if (typeof x?.message === 'string') {
    const m = /Non-200 status code \((\d{3})\)|\(HTTP (\d{3})\)|HTTP (\d{3})\b/.exec(x.message);
    if (m) return Number(m[1] ?? m[2] ?? m[3]);
  }
  return undefined;
}

/** The JSON-RPC error a server sent inside an HTTP error body (e.g. `400` carrying `-32022`), if any. */
export function embeddedJsonRpcError(e: unknown): { code: number; message: string; data?: unknown } | undefined {
  const message = (e as { message?: unknown })?.message;
  if (typeof message !== 'string') return undefined;
  const start = message.indexOf('{');
  if (start === -1) return undefined;
  try {
    const body = JSON.parse(message.slice(start)) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (typeof body?.error?.code === 'number') {
      return { code: body.error.code, message: String(body.error.message ?? ''), data: body.error.data };
    }
  } catch {
    // not a JSON body
  }
  return undefined;
}

function truncate(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? oneLine.slice(0, max) + '…' : oneLine;
}

/** The revisions the registry speaks, for messages: both eras. */
export const SPOKEN_REVISIONS = '2024-11-05 to 2025-11-25 (initialize) and 2026-07-28 (server/discover)';

function jsonRpcFailure(code: number, raw: string, phase: string, redact: Redactor, data?: unknown): McpFailure {
  // The SDK prefixes the server's message with its own "MCP error <code>: ".
  const message = raw.replace(/^MCP error -?\d+: /, '');
  if (code === -32022 || (code === -32602 && /protocol version/i.test(message))) {
    const supported = (data as { supported?: unknown } | undefined)?.supported;
    const theirs = Array.isArray(supported) ? `the server speaks ${supported.map(String).join(', ')}` : truncate(redact(message));
    return new McpFailure(McpFailureCode.UnsupportedProtocol, `no protocol revision in common: ${theirs}; the registry speaks ${SPOKEN_REVISIONS}`);
  }
  if (code === -32000 && /connection closed/i.test(message)) {
    return new McpFailure(McpFailureCode.ConnectionReset, `the server closed the connection during ${phase}`);
  }
  if (code === -32001) return new McpFailure(McpFailureCode.Timeout, `the server did not answer ${phase} in time`);
  return new McpFailure(McpFailureCode.RemoteError, `the server answered ${phase} with JSON-RPC error ${code}: ${truncate(redact(message))}`);
}

/**
 * Turns whatever a transport, an SDK client or the network threw into a
 * McpFailure with a message a person can act on. `phase` says what was under
 * way ("initialize", "tools/list page 3").
 */
export function classifyError(err: unknown, phase: string, redact: Redactor = (t) => t): McpFailure {
  const links = chain(err);
  for (const e of links) if (e instanceof McpFailure) return e;
  for (const e of links) {
    const x = e as { name?: string; code?: unknown; message?: string };
    if (x?.name === 'OutboundBlockedError' || x?.code === 'OUTBOUND_BLOCKED') {
      return new McpFailure(McpFailureCode.OutboundBlocked, `the outbound address policy refused the connection: ${x.message ?? ''}`);
    }
  }
  for (const e of links) {
    const status = httpStatusOf(e);
    if (status === undefined) continue;
    const rpc = embeddedJsonRpcError(e);
    // 404 on a request of an open session: the server no longer knows it (it restarted, or dropped it), which
    // the SDK servers say with -32001 ("Session not found") and the lean transport in its own words.
    const text = String((e as { message?: unknown }).message ?? '');
    if (status === 404 && (rpc?.code === -32001 || /session not found|does not know this session/i.test(rpc?.message ?? text))) {
      return new McpFailure(McpFailureCode.ConnectionReset, `the server no longer knows the session (it restarted or dropped it) during ${phase}`, 404);
    }
    if (rpc) return jsonRpcFailure(rpc.code, rpc.message, phase, redact, rpc.data);
    const known = HTTP_MESSAGES[status];
    if (known) return new McpFailure(known[0], known[1], status);
    if (status === 408 || status === 429 || status >= 500) {
      return new McpFailure(McpFailureCode.ServerUnavailable, `the server answered HTTP ${status} during ${phase}`, status);
    }
    return new McpFailure(McpFailureCode.HttpRejected, `the server answered HTTP ${status} during ${phase}`, status);
  }
  for (const e of links) {
    const code = (e as { code?: unknown })?.code;
    if (typeof code === 'string' && ERRNO[code]) {
      const [c, text] = ERRNO[code];
      return new McpFailure(c, `${text} (during ${phase})`);
    }
  }
  for (const e of links) {
    const x = e as { code?: unknown; message?: unknown; name?: string; data?: unknown };
    if (typeof x?.code === 'number' && x.code < 0) return jsonRpcFailure(x.code, String(x.message ?? ''), phase, redact, x.data);
    if (x?.code === 'REQUEST_TIMEOUT') return new McpFailure(McpFailureCode.Timeout, `the server did not answer ${phase} in time`);
    if (x?.code === 'CONNECTION_CLOSED') return new McpFailure(McpFailureCode.ConnectionReset, `the server closed the connection during ${phase}`);
    if (x?.code === 'INVALID_RESULT' || x?.code === 'UNSUPPORTED_RESULT_TYPE') {
      return new McpFailure(McpFailureCode.ProtocolViolation, `the server's answer to ${phase} is not a valid MCP result`);
    }
  }
  for (const e of links) {
    const x = e as { name?: string; message?: unknown };
    if (x?.name === 'SyntaxError') return new McpFailure(McpFailureCode.ProtocolViolation, `the server's answer to ${phase} is not valid JSON`);
    if (x?.name === 'ZodError' || x?.name === '$ZodError') {
      return new McpFailure(McpFailureCode.ProtocolViolation, `the server's answer to ${phase} is not a valid JSON-RPC message`);
    }
    if (x?.name === 'TimeoutError' || x?.name === 'AbortError') return new McpFailure(McpFailureCode.Timeout, `${phase} was cut off: no answer in time`);
    if (typeof x?.message === 'string' && /protocol version is not supported/i.test(x.message)) {
      return new McpFailure(
        McpFailureCode.UnsupportedProtocol,
        `the server chose a protocol revision the registry does not speak (${truncate(redact(x.message))}); the registry speaks ${SPOKEN_REVISIONS}`,
      );
    }
  }
  const first = links[0] as { message?: unknown } | undefined;
  const text = typeof first?.message === 'string' ? first.message : String(err);
  return new McpFailure(McpFailureCode.Unexpected, `unexpected failure during ${phase}: ${truncate(redact(text))}`);
}
