export {
  ServerKind,
  ServerStatus,
  TransportType,
  KIND_WIRE,
  STATUS_WIRE,
  KIND_WIRE_NAMES,
  STATUS_WIRE_NAMES,
  parseKind,
  parseStatus,
  kindToWire,
  statusToWire,
} from './enums';
export {
  DomainError,
  FieldError,
  InvalidInputError,
  UnauthenticatedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  RateLimitedError,
  UpstreamError,
  UpstreamTimeoutError,
  NotConfiguredError,
  ServiceUnavailableError,
  LimitInfo,
  LimitRefusal,
  isLimitRefusal,
  QuotaExceededError,
  InFlightLimitError,
  ResultTooLargeError,
} from './errors';
export {
  ToolDefinition,
  TOOL_FIELDS,
  ToolPolicy,
  TOOL_POLICIES,
  OVERRIDE_META_KEY,
  ServerCredentials,
  StoredCredentials,
  ServerRecord,
  Principal,
  isAdmin,
  AuthorizationStatus,
  ServerAuthorizationView,
  OAuthGrant,
  ServerAuthConfig,
} from './server';
export { timeOrderedUuid, canonicalId } from './ids';
export { Viewer, maySee, viewerTenant } from './visibility';
export { ServerConnection, CONNECTION_FIELDS, ConnectionField, connectionOf, connectionFingerprint } from './connection';
export { formatMs, oneLine, textProblem } from './text';
export { REQUEST_LIMITS, parseKinds } from './request-limits';
export { ListingKind, LISTING_KINDS, LISTING_METHODS, ListedItem, uriMatchesTemplate } from './listing';
