export {};
export {
  PipedreamTokenProvider,
  PipedreamTokenProviderOptions,
  PipedreamCredentialsConfig,
  PipedreamTarget,
  sharedPipedreamTokenProvider,
  pipedreamHeaders,
  pipedreamRequestHeaders,
  pipedreamExternalUserId,
} from './pipedream';
export { OutboundPolicy, OutboundBlockedError, OUTBOUND_LOOKUP, LookupAll, assertOutboundAllowed } from './outbound-policy';
export { parseAddress, classifyAddress, ParsedAddress, AddressClass, AddressRange } from './special-addresses';
export { McpModule } from './mcp.module';
export { InProcessServers, InProcessServerDefinition } from './in-process/in-process-servers';
export { McpConnector, ConnectOptions, CLIENT_INFO, MODERN_VERSIONS, LEGACY_VERSIONS } from './connection/mcp-connector';
export { ConnectionTargetResolver } from './connection/connection-target.resolver';
export { ServerSessions, OpenedSession } from './connection/server-sessions';
export { StdioWorkspaces } from './connection/stdio-workspaces';
export { ConnectionTarget, HttpTarget, StdioTarget, InProcessTarget } from './connection/connection-target';
export {
  UpstreamAuthorizer,
  UpstreamChallenge,
  RefusalVerdict,
  HeldToken,
  TargetAuthorization,
  UPSTREAM_AUTHORIZER,
  challengeRecordingFetch,
} from './connection/upstream-authorizer';
export { McpSession, ProtocolEra, ServerIdentity, McpRequestOptions, SessionTransport } from './connection/mcp-session';
export { McpFailure, McpFailureCode, isTransientFailure } from './connection/mcp-failure';
export { classifyError } from './connection/classify-error';
export { redactor, redactsNothing, Redactor, REDACTED, secretVariants, urlSecrets, namedSecrets } from './connection/redaction';
export { ByteBudget, ByteCounter, countingAnswers, currentAnswerCounter, countingFetch, formatBytes, FetchLike } from './connection/byte-budget';
export { ChildProcessTransport, ChildProcessTransportOptions } from './transports/child-process.transport';
export { StderrTail } from './transports/stderr-tail';
export { InProcessContext } from './in-process/in-process-servers';
export {
  McpSessionPool,
  McpSessionPoolOptions,
  DEFAULT_POOL_OPTIONS,
  PoolStats,
  breaksSession,
  detachedSignalFetch,
  PooledHttpTransport,
  PooledHttpTransportOptions,
  PooledHttpError,
  policyLookup,
} from './pool';
