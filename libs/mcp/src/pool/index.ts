export { McpSessionPool, McpSessionPoolOptions, DEFAULT_POOL_OPTIONS, PoolStats, breaksSession } from './mcp-session-pool';
