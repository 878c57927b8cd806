export {
  McpServerInfo,
  SearchToolsInput,
  SearchToolsResult,
  ListServersInput,
  ListServersResult,
  CallToolInput,
  CallToolContext,
  RegistryTools,
} from './registry-tools';
export {
  createRegistryMcpServer,
  REGISTRY_SERVER_NAME,
  REGISTRY_SERVER_TITLE,
  REGISTRY_SERVER_INSTRUCTIONS,
  SEARCH_TOOLS_DESCRIPTION,
  GET_SERVER_INFO_DESCRIPTION,
  LIST_SERVERS_DESCRIPTION,
  CALL_TOOL_DESCRIPTION,
} from './registry-mcp-server';
export { RegistryServerModule, RegistryServerRegistration, REGISTRY_TOOLS, registryVersion } from './registry-server.module';
export { registryDefinition, SERVER_RESOURCE_TEMPLATE, serverResourceUri, asToolError, forwardingProgress } from './registry-mcp-server';
export {
  McpServerDefinition,
  McpCallContext,
  McpCompletionRequest,
  McpCompletion,
  McpDefinitionError,
  INVALID_PARAMS,
  MAX_COMPLETION_VALUES,
  completion,
} from './server-definition';
export { legacyServerOf, modernServerOf, capabilitiesOf, DefinitionCapabilities } from './definition-servers';
