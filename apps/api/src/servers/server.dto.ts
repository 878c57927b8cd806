import { KIND_WIRE_NAMES, STATUS_WIRE_NAMES, TOOL_POLICIES, ToolPolicy, TransportType } from '@app/domain';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEnum,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { FromCatalogDto } from '../catalog/from-catalog.dto';
import { IsEntityId } from '../common/ids';
import { PageOf, PageQueryDto } from '../common/page.dto';
import { IsHttpUrl, IsOptionalNotNull, IsResourceName, IsStringRecord, IsWireKind, IsWireStatus, PRINTABLE } from '../common/validators';
import { ENV_NAME, HEADER_NAME, LIMITS, METADATA_KEY, RESERVED_HEADERS, RESERVED_SECRET_HEADERS } from './server.limits';
import { JsonObject, NullableNumber, NullableText, TextList, TextMap } from '../common/api-fields';

const TRANSPORTS = Object.values(TransportType);

const headerRecord = (maxValue: number, reserved: Record<string, string>) =>
  IsStringRecord({
    maxEntries: LIMITS.headers,
    maxKeyLength: LIMITS.headerName,
    maxValueLength: maxValue,
    keyPattern: HEADER_NAME,
    keyRule: 'a valid header name',
    reservedKeys: reserved,
    singleLine: true,
  });

const metadataRecord = () =>
  IsStringRecord({
    maxEntries: LIMITS.metadata,
    maxKeyLength: LIMITS.metadataKey,
    maxValueLength: LIMITS.metadataValue,
    keyPattern: METADATA_KEY,
    keyRule: 'a label key (letters, digits, . _ / -)',
  });

const envRecord = () =>
  IsStringRecord({
    maxEntries: LIMITS.env,
    maxKeyLength: 200,
    maxValueLength: LIMITS.envValue,
    keyPattern: ENV_NAME,
    keyRule: 'an environment variable name',
  });

/** Write-only: stored encrypted, never returned, logged or put in an error. */
export class CredentialsDto {
  @ApiPropertyOptional({ description: 'Sent as `Authorization: Bearer <token>` to the server', maxLength: LIMITS.bearerToken })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(LIMITS.bearerToken)
  @Matches(/^[^\r\n\0]*$/, { message: 'bearerToken must not contain line breaks' })
  bearerToken?: string;

  @ApiPropertyOptional({ description: 'Secret headers sent to the server (name to value)', type: 'object', additionalProperties: { type: 'string' } })
  @IsOptionalNotNull()
  @headerRecord(LIMITS.secretHeaderValue, RESERVED_SECRET_HEADERS)
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      'BUILT_IN only: the environment variable of the platform that holds its token, read only when connecting. It must start with MCP_SECRET_ or be listed in CREDENTIAL_ENV_ALLOW, and is never one of the registry\'s own settings (CREDENTIALS_KEY, ADMIN_API_KEY, DATABASE_URL, …)',
    example: 'MCP_SECRET_VENDOR_TOKEN',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  @Matches(ENV_NAME, { message: 'env must be an environment variable name' })
  env?: string;
}

const OAUTH_GRANTS = ['authorization_code', 'client_credentials'] as const;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Upstream OAuth for a server that requires it. Nothing is needed for most servers: the registry detects
 * the authorization server, registers itself and asks a person to consent. `clientSecret` is write-only.
 */
export class AuthDto {
  @ApiPropertyOptional({ description: 'A client registered beforehand with the authorization server (used instead of registering one)', example: 'mcp-registry', maxLength: 500 })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  @Matches(PRINTABLE, { message: 'clientId must not contain control characters' })
  clientId?: string;

  @ApiPropertyOptional({ description: "Write-only: the pre-registered client's secret (stored encrypted, never returned)", maxLength: 2000 })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  @Matches(/^[^\r\n\0]*$/, { message: 'clientSecret must not contain line breaks' })
  clientSecret?: string;

  @ApiPropertyOptional({ description: 'Scopes to ask for when neither the server challenge nor its metadata names any', type: [String], example: ['repo:read'] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  @Matches(SCOPE_TOKEN, { each: true, message: 'each scope must be a scope token (printable, no spaces, quotes or backslashes)' })
  scopes?: string[];

  @ApiPropertyOptional({
    description: 'authorization_code (default: a person consents) or client_credentials (machine to machine: needs clientId and clientSecret)',
    enum: OAUTH_GRANTS,
  })
  @IsOptionalNotNull()
  @IsEnum(OAUTH_GRANTS, { message: `grant must be one of ${OAUTH_GRANTS.join(', ')}` })
  grant?: (typeof OAUTH_GRANTS)[number];
}

/** The registration fields shared by create and update. */
class RegistrationFieldsDto {
  @ApiPropertyOptional({ description: 'HTTP(S) endpoint of a remote server (streamable-http, sse)', maxLength: LIMITS.url, nullable: true, type: String })
  @IsOptional()
  @IsHttpUrl()
  url?: string | null;

  @ApiPropertyOptional({ description: 'stdio: the program to run (BUILT_IN only)', maxLength: LIMITS.command, nullable: true, type: String })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(LIMITS.command)
  command?: string | null;

  @ApiPropertyOptional({ description: 'stdio: the program arguments', type: [String], maxItems: LIMITS.args })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(LIMITS.args)
  @IsString({ each: true })
  @MaxLength(LIMITS.arg, { each: true })
  args?: string[];

  @ApiPropertyOptional({ description: 'stdio: environment of the program (name to value)', type: 'object', additionalProperties: { type: 'string' } })
  @IsOptionalNotNull()
  @envRecord()
  env?: Record<string, string>;

  @ApiPropertyOptional({
    description: `Non-secret headers sent to the server (at most ${LIMITS.headers}); secrets go in credentials`,
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  @IsOptionalNotNull()
  @headerRecord(LIMITS.headerValue, RESERVED_HEADERS)
  headers?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Write-only credentials (null on update removes them)', type: CredentialsDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CredentialsDto)
  credentials?: CredentialsDto | null;

  @ApiPropertyOptional({
    description: 'Upstream OAuth (remote CUSTOM and BUILT_IN servers): a pre-registered client, scopes, the grant; null on update removes it',
    type: AuthDto,
    nullable: true,
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AuthDto)
  auth?: AuthDto | null;

  @ApiPropertyOptional({ description: 'Whether the platform discovers and calls the server (default true)' })
  @IsOptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({
    description: `Labels (string to string, at most ${LIMITS.metadata}, values at most ${LIMITS.metadataValue} characters)`,
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  @IsOptionalNotNull()
  @metadataRecord()
  metadata?: Record<string, string>;

  @ApiPropertyOptional({
    description: 'Re-discovery period in seconds (default: DISCOVERY_INTERVAL_SECONDS); null on update restores the default',
    minimum: LIMITS.minIntervalSeconds,
    maximum: LIMITS.maxIntervalSeconds,
    nullable: true,
    type: Number,
  })
  @IsOptional()
  @IsInt()
  @Min(LIMITS.minIntervalSeconds)
  @Max(LIMITS.maxIntervalSeconds)
  discoveryIntervalSeconds?: number | null;

  @ApiPropertyOptional({
    description:
      'Which tool definitions are served (default open): open, each as discovered; pinned, those of the first discovery, later new or ' +
      'changed ones once approved; approval, each once approved (GET /api/v1/servers/{id}/tool-changes). Changed to open, every ' +
      'definition waiting is approved. See docs/tool-integrity.md',
    enum: TOOL_POLICIES,
  })
  @IsOptionalNotNull()
  @IsEnum(TOOL_POLICIES, { message: `toolPolicy must be one of ${TOOL_POLICIES.join(', ')}` })
  toolPolicy?: ToolPolicy;
}

export class CreateServerDto extends RegistrationFieldsDto {
  @ApiProperty({
    description: `Name, unique per owner (1 to ${LIMITS.name} characters); with fromCatalog it defaults to the entry's name after its namespace`,
    example: 'github',
    maxLength: LIMITS.name,
  })
  @ValidateIf((o: CreateServerDto) => o.fromCatalog === undefined || o.name !== undefined)
  @IsResourceName(LIMITS.name)
  name!: string;

  @ApiPropertyOptional({
    description:
      'Kind, as canonical name or number. Default: MCP_SERVER_KIND_CUSTOM for a tenant, MCP_SERVER_KIND_BUILT_IN for the admin ' +
      '(MCP_SERVER_KIND_CUSTOM when the admin gives tenantId). INTERNAL and EXTERNAL cannot be registered through the API; ' +
      'INTEGRATION servers are made with POST /api/v1/integrations.',
    oneOf: [{ type: 'string', enum: KIND_WIRE_NAMES }, { type: 'integer', minimum: 1, maximum: 5 }],
  })
  @IsOptionalNotNull()
  @IsWireKind()
  kind?: string | number;

  @ApiProperty({ description: 'How the platform reaches the server. Tenants: streamable-http or sse only. Not given with fromCatalog', enum: TRANSPORTS })
  @ValidateIf((o: CreateServerDto) => o.fromCatalog === undefined || o.transport !== undefined)
  @IsEnum(TransportType, { message: `transport must be one of ${TRANSPORTS.join(', ')}` })
  transport!: TransportType;

  @ApiPropertyOptional({ description: 'Admin only: register a CUSTOM server on behalf of this tenant' })
  @IsOptionalNotNull()
  @IsEntityId()
  tenantId?: string;

  @ApiPropertyOptional({
    description:
      'Instead of the connection fields (transport, url, command, args, env, headers, credentials): a remote or a package of a catalog ' +
      'entry, with its declared inputs filled in. See docs/catalog.md',
    type: FromCatalogDto,
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => FromCatalogDto)
  fromCatalog?: FromCatalogDto;
}

export class CreateServersDto {
  @ApiProperty({
    description: `The registrations, 1 to ${LIMITS.batch}, each as for POST /api/v1/servers`,
    type: [CreateServerDto],
    minItems: 1,
    maxItems: LIMITS.batch,
  })
  @IsArray()
  // ValidateNested alone lets an item that is itself an array through (it validates that array's items).
  @IsObject({ each: true, message: 'servers must hold registrations (JSON objects)' })
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.batch)
  @ValidateNested({ each: true })
  @Type(() => CreateServerDto)
  servers!: CreateServerDto[];
}

export class UpdateServerDto extends RegistrationFieldsDto {
  @ApiPropertyOptional({ description: `New name, unique per owner`, maxLength: LIMITS.name })
  @IsOptionalNotNull()
  @IsResourceName(LIMITS.name)
  name?: string;

  @ApiPropertyOptional({ description: 'New transport (the URL or command must fit it)', enum: TRANSPORTS })
  @IsOptionalNotNull()
  @IsEnum(TransportType, { message: `transport must be one of ${TRANSPORTS.join(', ')}` })
  transport?: TransportType;
}

export class ListServersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only this kind: canonical name or number', example: 'MCP_SERVER_KIND_CUSTOM' })
  @IsOptional()
  @IsWireKind()
  kind?: string;

  @ApiPropertyOptional({ description: 'Only this status: canonical name or number', example: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED' })
  @IsOptional()
  @IsWireStatus()
  status?: string;

  @ApiPropertyOptional({ description: 'Case-insensitive text in the name (or in the name the server gives itself)', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  q?: string;
}

export class DiscoveriesQueryDto extends PageQueryDto {}

/** The base of an answer about one server's tools, runs or listings: the server it is about, first. */
export class ServerScopedDto {
  @ApiProperty({ description: 'The server' })
  serverId!: string;
}

export class AuthorizationViewDto {
  @ApiProperty({ description: 'none: no OAuth needed; required: a person must authorize; authorized: tokens held; expired: a refresh was refused', enum: ['none', 'required', 'authorized', 'expired'] })
  status!: 'none' | 'required' | 'authorized' | 'expired';

  @ApiPropertyOptional({ description: 'The authorization server (issuer)', example: 'https://auth.example.com' })
  issuer?: string;

  @ApiPropertyOptional({ description: 'Scopes asked for (required) or granted (authorized)', type: [String] })
  scopes?: string[];

  @ApiPropertyOptional({ description: 'When the access token held expires', example: '2026-12-02T10:00:00.000Z' })
  expiresAt?: string;
}

export class AuthConfigDto {
  @ApiPropertyOptional({ description: 'The pre-registered client' })
  clientId?: string;

  @ApiPropertyOptional({ description: 'Scopes to ask for when the server names none', type: [String] })
  scopes?: string[];

  @ApiPropertyOptional({ enum: OAUTH_GRANTS })
  grant?: (typeof OAUTH_GRANTS)[number];

  @ApiProperty({ description: 'Whether a client secret is stored (it is never returned)' })
  hasClientSecret!: boolean;
}

export class ServerDto {
  @ApiProperty({ description: 'Server id (the serverId of the RPC API)' })
  id!: string;

  @ApiProperty({ description: 'Name, unique per owner' })
  name!: string;

  @ApiProperty({ description: 'Ownership kind', enum: KIND_WIRE_NAMES })
  kind!: string;

  @ApiProperty({ description: 'Transport', enum: TRANSPORTS })
  transport!: string;

  @NullableText('Endpoint of a remote server')
  url!: string | null;

  @NullableText('stdio: the program')
  command!: string | null;

  @TextList('stdio: the arguments')
  args!: string[];

  @ApiPropertyOptional({ description: "stdio: the program's environment (shown to the admin and the owner only)", type: 'object', additionalProperties: { type: 'string' } })
  env?: Record<string, string>;

  @TextMap('Non-secret headers')
  headers!: Record<string, string>;

  @ApiProperty({ description: 'Whether credentials are stored (they are never returned)' })
  hasCredentials!: boolean;

  @ApiProperty({ description: 'Upstream OAuth: where the server stands (never a token)', type: AuthorizationViewDto })
  authorization!: AuthorizationViewDto;

  @ApiPropertyOptional({ description: "The registration's auth, less its secret", type: AuthConfigDto })
  auth?: AuthConfigDto;

  @ApiProperty({ description: 'Whether the platform discovers and calls it' })
  enabled!: boolean;

  @TextMap('Labels')
  metadata!: Record<string, string>;

  @NullableNumber('Re-discovery period in seconds (null: the default)')
  discoveryIntervalSeconds!: number | null;

  @NullableText('INTEGRATION: the Pipedream app')
  appSlug!: string | null;

  @NullableText('INTEGRATION: the connected Pipedream account')
  accountId!: string | null;

  @NullableText("Owning tenant; null for the platform's servers")
  tenantId!: string | null;

  @ApiProperty({ description: 'Connection status', enum: STATUS_WIRE_NAMES })
  status!: string;

  @NullableText('Why the status is what it is (the last error, or that discovery is pending)')
  statusReason!: string | null;

  @ApiProperty({ description: 'Version the server reported (empty until discovered)' })
  version!: string;

  @NullableText('Name the server reported about itself')
  serverName!: string | null;

  @NullableText('Title the server reported')
  serverTitle!: string | null;

  @NullableText('MCP protocol revision negotiated')
  protocolVersion!: string | null;

  @NullableText('Instructions the server gave')
  instructions!: string | null;

  @TextList('Capabilities the server reported, e.g. ["tools","resources"]')
  capabilities!: string[];

  @ApiProperty({ description: 'Tools found by the last discovery (those waiting for a decision included)' })
  toolCount!: number;

  @ApiProperty({ description: 'Which tool definitions are served: open, pinned or approval', enum: TOOL_POLICIES })
  toolPolicy!: ToolPolicy;

  @ApiProperty({ description: 'Tool definitions waiting for a decision (GET /api/v1/servers/{id}/tool-changes)' })
  pendingToolChanges!: number;

  @NullableNumber('Resources found by the last discovery')
  resourceCount!: number | null;

  @NullableNumber('Prompts found by the last discovery')
  promptCount!: number | null;

  @NullableNumber('Resource templates found by the last discovery (null: the server declares no resources, or the list failed)')
  resourceTemplateCount!: number | null;

  @ApiProperty({
    description:
      'Why a declared list besides tools was not read whole, by its method (resources/list, resources/templates/list, prompts/list); ' +
      'null when every one was. Such a failure keeps the server CONNECTED with its tools',
    nullable: true,
    type: 'object',
    additionalProperties: { type: 'string' },
  })
  listingErrors!: Record<string, string> | null;

  @NullableText('When a discovery was last asked for')
  discoveryRequestedAt!: string | null;

  @NullableText('When discovery last succeeded')
  lastDiscoveredAt!: string | null;

  @NullableText('When the next scheduled discovery is due')
  nextDiscoveryAt!: string | null;

  @ApiProperty({ description: 'Registered at (ISO 8601)' })
  createdAt!: string;

  @ApiProperty({ description: 'Last changed at (ISO 8601)' })
  updatedAt!: string;
}

export class ServerListDto {
  @ApiProperty({ description: 'The servers registered, in the order asked for', type: [ServerDto] })
  servers!: ServerDto[];
}

export class ServerPageDto extends PageOf(ServerDto, 'servers', 'Servers the caller may see, oldest first') {}

export class ToolDefinitionDto {
  @ApiProperty({ description: 'Tool name' })
  name!: string;

  @ApiPropertyOptional({ description: 'Display title' })
  title?: string;

  @ApiPropertyOptional({ description: 'What the tool does' })
  description?: string;

  @JsonObject('JSON Schema of the arguments')
  inputSchema!: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'JSON Schema of the structured result', type: 'object', additionalProperties: true })
  outputSchema?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'MCP tool annotations', type: 'object', additionalProperties: true })
  annotations?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Icons, as the server sent them', type: 'array', items: { type: 'object', additionalProperties: true } })
  icons?: unknown[];

  @ApiPropertyOptional({ description: 'How the tool runs: taskSupport (forbidden, optional, required)', type: 'object', additionalProperties: true })
  execution?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: "The tool's _meta as the server sent it; an overridden definition carries dev.mcp-registry/override: {fields}",
    type: 'object',
    additionalProperties: true,
  })
  _meta?: Record<string, unknown>;
}

export class WithheldToolDto {
  @ApiProperty({ description: 'Why it is not served: its definition waits for a decision, was rejected, or the tool is disabled', enum: ['pending', 'rejected', 'disabled'] })
  reason!: 'pending' | 'rejected' | 'disabled';

  @ApiProperty({ description: "sha256 of the definition's RFC 8785 canonical JSON" })
  hash!: string;

  @ApiProperty({ description: 'The definition as discovered (with its override, if any)', type: ToolDefinitionDto })
  tool!: ToolDefinitionDto;
}

export class ToolListDto extends ServerScopedDto {
  @ApiProperty({
    description: 'The tools served, as last discovered, in the order the server listed them, with their overrides (marked in _meta)',
    type: [ToolDefinitionDto],
  })
  tools!: ToolDefinitionDto[];

  @ApiPropertyOptional({ description: 'For the owner and the admin, when there are any: the tools discovered and not served, and why', type: [WithheldToolDto] })
  withheld?: WithheldToolDto[];
}

export class DroppedToolDto {
  @ApiProperty({ description: "The tool's place in the server's listing" })
  index!: number;

  @ApiPropertyOptional({ description: 'Its name, if it had one' })
  name?: string;

  @ApiProperty({ description: 'Why it was left out' })
  reason!: string;
}

export class ToolChangeSummaryDto {
  @ApiProperty({ description: 'The tool' })
  name!: string;

  @ApiProperty({ description: 'The fields whose value changed', type: [String], example: ['description', 'inputSchema'] })
  fields!: string[];

  @ApiProperty({ description: 'Hash of the definition after' })
  hash!: string;

  @ApiProperty({ description: 'Hash of the definition before' })
  previousHash!: string;
}

export class DiscoveryRunDto {
  @ApiProperty({ description: 'Run id' })
  id!: string;

  @ApiProperty({ description: 'Why it ran', example: 'manual' })
  trigger!: string;

  @ApiProperty({ description: 'Attempt number' })
  attempt!: number;

  @ApiProperty({ description: 'Started at (ISO 8601)' })
  startedAt!: string;

  @NullableText('Finished at')
  finishedAt!: string | null;

  @NullableNumber('Duration in milliseconds')
  durationMs!: number | null;

  @ApiProperty({ description: 'Outcome', enum: ['RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] })
  outcome!: string;

  @NullableText('Why it failed')
  error!: string | null;

  @NullableNumber('Tools found')
  toolCount!: number | null;

  @TextList('Tools that appeared')
  added!: string[];

  @TextList('Tools that disappeared')
  removed!: string[];

  @TextList('Tools whose definition changed')
  changed!: string[];

  @ApiProperty({ description: 'Tools the server listed that were not valid and were left out, with why', type: [DroppedToolDto] })
  dropped!: DroppedToolDto[];

  @NullableText("sha256 of the listing's RFC 8785 canonical JSON (tool name to definition hash); null unless it succeeded")
  toolsHash!: string | null;

  @ApiProperty({ description: 'For each changed tool: the fields whose value changed, and its hashes before and after', type: [ToolChangeSummaryDto] })
  changes!: ToolChangeSummaryDto[];

  @TextList('Tools whose new or changed definition this run held for a decision (tool policy pinned or approval)')
  held!: string[];
}

export class DiscoveryRunPageDto extends IntersectionType(ServerScopedDto, PageOf(DiscoveryRunDto, 'runs', 'Runs, newest first')) {}
