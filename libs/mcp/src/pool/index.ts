export { McpSessionPool, McpSessionPoolOptions, DEFAULT_POOL_OPTIONS, PoolStats, breaksSession } from './mcp-session-pool';
export { detachedSignalFetch } from './detached-signal.fetch';
export { PooledHttpTransport, PooledHttpTransportOptions, PooledHttpError, MAX_MESSAGE_BYTES } from './pooled-http.transport';
export { policyLookup } from './policy-lookup';
