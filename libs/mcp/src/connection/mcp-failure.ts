/**
 * Why talking to an MCP server failed, as a code a program can branch on. Each
 * code is either transient (worth another attempt soon) or permanent (another
 * attempt would fail the same way until someone changes something).
 */
export enum McpFailureCode {
  /** The registration cannot be used as it is: bad URL, no command, unknown in-process server. */
  InvalidTarget = 'INVALID_TARGET',
  /** The outbound policy refused the address (tenant servers only). */
  OutboundBlocked = 'OUTBOUND_BLOCKED',
  /** The credentials to send could not be had: a variable unset, a ciphertext that does not open. */
  CredentialsUnavailable = 'CREDENTIALS_UNAVAILABLE',
  Unauthorized = 'UNAUTHORIZED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  /** The server speaks no protocol revision the registry speaks. */
  UnsupportedProtocol = 'UNSUPPORTED_PROTOCOL',
  /** The server broke the protocol: invalid JSON, garbage on stdout, a malformed answer. */
  ProtocolViolation = 'PROTOCOL_VIOLATION',
  /** The server answered a request with a JSON-RPC error. */
  RemoteError = 'REMOTE_ERROR',
  /** The server offered more than the registry accepts (pages, tools or bytes). */
  LimitExceeded = 'LIMIT_EXCEEDED',
  /** The command could not be started or exited before the exchange finished. */
  ProcessFailed = 'PROCESS_FAILED',
  /** Another HTTP status the server answered with that no retry will change (other 4xx). */
  HttpRejected = 'HTTP_REJECTED',
  /** The host name does not resolve. */
  HostNotFound = 'HOST_NOT_FOUND',
  ConnectionRefused = 'CONNECTION_REFUSED',
  ConnectionReset = 'CONNECTION_RESET',
  /** A 5xx or 429 answer. */
  ServerUnavailable = 'SERVER_UNAVAILABLE',
  Timeout = 'TIMEOUT',
  /** A temporary failure of a service the connection depends on (DNS, Pipedream's token endpoint). */
  DependencyUnavailable = 'DEPENDENCY_UNAVAILABLE',
  /** Something no rule above explains; treated as transient so that it is tried again. */
  Unexpected = 'UNEXPECTED',
}

const TRANSIENT = new Set<McpFailureCode>([
  McpFailureCode.ConnectionRefused,
  McpFailureCode.ConnectionReset,
  McpFailureCode.ServerUnavailable,
  McpFailureCode.Timeout,
  McpFailureCode.DependencyUnavailable,
  McpFailureCode.Unexpected,
]);

export function isTransientFailure(code: McpFailureCode): boolean {
  return TRANSIENT.has(code);
}

/**
 * A failure to connect to or talk with an MCP server. The message is written
 * for the person who registered the server: it says what happened and what to
 * check, and never carries a credential.
 */
export class McpFailure extends Error {
  readonly transient: boolean;

  constructor(
    readonly code: McpFailureCode,
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'McpFailure';
    this.transient = isTransientFailure(code);
  }
}
