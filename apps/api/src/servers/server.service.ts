import {
  DEFAULT_PAGE_SIZE,
  DiscoveryRunRepository,
  ServerChange,
  ServerCreate,
  ServerFilter,
  ServerRepository,
  TenantRepository,
  ToolRepository,
} from '@app/database';
import { CredentialsCipher } from '@app/credentials';
import {
  CONNECTION_FIELDS,
  ConflictError,
  DomainError,
  FieldError,
  ForbiddenError,
  InvalidInputError,
  isAdmin,
  NotFoundError,
  parseKind,
  parseStatus,
  Principal,
  ServerKind,
  ServerRecord,
  ServerStatus,
  timeOrderedUuid,
  TransportType,
} from '@app/domain';
import { APP_CONFIG, AppConfig } from '@app/config';
import { assertOutboundAllowed, OutboundPolicy, StdioWorkspaces } from '@app/mcp';
import { DiscoveryRequests } from '@app/discovery';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { CatalogRegistrationService } from '../catalog/catalog-registration';
import { Answer, AnswerCache, audienceOf } from '../common/answer-cache';
import { LOCAL_SERVER_CHANGES, LocalServerChanges } from '../common/local-server-changes';
import {
  CreateServerDto,
  DiscoveriesQueryDto,
  DiscoveryRunPageDto,
  ListServersQueryDto,
  ServerDto,
  ServerPageDto,
  ToolListDto,
  UpdateServerDto,
} from './server.dto';
import { toDiscoveryRunDto, toServerDto } from './server.presenter';
import {
  assertNoFieldErrors,
  assertOwnerOrAdmin,
  assertWritable,
  authErrors,
  connectionErrors,
  credentialsErrors,
  INTEGRATION_MUTABLE,
  resolveCreateTarget,
  splitAuth,
  splitCredentials,
} from './server.rules';

const QUEUED = 'discovery queued';
/** Address lookups a batch registration runs at a time (the outbound policy resolves each tenant host). */
const OUTBOUND_CHECKS_AT_ONCE = 8;
const DISABLED = 'disabled';

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new InvalidInputError('name: must not be blank', [{ field: 'name', message: 'must not be blank' }]);
  return trimmed;
}

/**
 * Servers by kind: who may register, see, change and delete which, with
 * credentials encrypted under the server's id and every change audited.
 */
@Injectable()
export class ServerService {
  private readonly logger = new Logger(ServerService.name);

  constructor(
    private readonly servers: ServerRepository,
    private readonly tenants: TenantRepository,
    private readonly toolRepository: ToolRepository,
    private readonly runRepository: DiscoveryRunRepository,
    private readonly cipher: CredentialsCipher,
    private readonly outbound: OutboundPolicy,
    private readonly requests: DiscoveryRequests,
    private readonly audit: AuditService,
    private readonly cache: AnswerCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly workspaces: StdioWorkspaces,
    private readonly fromCatalog: CatalogRegistrationService,
    @Optional() @Inject(LOCAL_SERVER_CHANGES) private readonly local?: LocalServerChanges,
  ) {}

  /** A tenant's servers are counted against its limit (its own, else TENANT_MAX_SERVERS) as they are stored. */
  private get quota() {
    return { maxServers: this.config.tenantLimits.maxServers };
  }

  /** A server the principal may see, or 404 (a tenant never learns whether another's exists). */
  async findVisible(principal: Principal, id: string): Promise<ServerRecord> {
    const server = await this.servers.findById(id, principal);
    if (!server) throw new NotFoundError(`server ${id} not found`);
    return server;
  }

  async create(principal: Principal, dto: CreateServerDto): Promise<ServerDto> {
    const input = await this.prepareCreate(principal, dto, new Map());
    const server = await this.servers.create(input, this.audit.eventsOf(principal, [createdEntry(input)]), this.quota);
    const asked = server.enabled ? await this.requests.request([{ id: server.id, tenantId: server.tenantId }], 'registered') : new Map<string, Date>();
    return toServerDto(withRequest(server, asked), principal);
  }

  /**
   * Several registrations in one request, all or none: each is checked as POST /servers checks one (a
   * refusal names the item, `servers.3.url`), the servers are stored with their audit records in one
   * statement, and their discoveries queued in one round trip.
   */
  async createMany(principal: Principal, dtos: CreateServerDto[]): Promise<ServerDto[]> {
    const tenantsSeen = new Map<string, boolean>();
    const inputs: ServerCreate[] = [];
    const names = new Map<string, number>();
    for (const [i, dto] of dtos.entries()) {
      let input: ServerCreate;
      try {
        input = await this.prepareCreate(principal, dto, tenantsSeen, false);
      } catch (err) {
        throw withinItem(err, `servers.${i}`);
      }
      const owned = `${input.tenantId ?? ''}\u0000${input.name}`;
      const first = names.get(owned);
      if (first !== undefined) {
        const message = `has the same name and owner as servers.${first}`;
        throw new InvalidInputError(`servers.${i}.name: ${message}`, [{ field: `servers.${i}.name`, message }]);
      }
      names.set(owned, i);
      inputs.push(input);
    }
    await this.assertOutboundAllowedAll(inputs);
    // The servers and their audit records are written by one statement: both or neither.
    const servers = await this.servers.createMany(inputs, this.audit.eventsOf(principal, inputs.map(createdEntry)), this.quota);
    const asked = await this.requests.request(servers.filter((s) => s.enabled).map((s) => ({ id: s.id, tenantId: s.tenantId })), 'registered');
    return servers.map((s) => toServerDto(withRequest(s, asked), principal));
  }

  /**
   * The outbound address policy for the tenant servers of a batch: each origin (scheme, host and port) is
   * looked up once, a few at a time; a refusal names the first item with that origin.
   */
  private async assertOutboundAllowedAll(inputs: ServerCreate[]): Promise<void> {
    const firstByOrigin = new Map<string, number>();
    inputs.forEach((input, i) => {
      if (input.kind !== ServerKind.CUSTOM || !input.url) return;
      const origin = new URL(input.url).origin;
      if (!firstByOrigin.has(origin)) firstByOrigin.set(origin, i);
    });
    const pending = [...firstByOrigin.values()];
    const check = async (): Promise<void> => {
      for (let i = pending.shift(); i !== undefined; i = pending.shift()) {
        try {
          await assertOutboundAllowed(this.outbound, inputs[i].url!);
        } catch (err) {
          pending.length = 0;
          throw withinItem(err, `servers.${i}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(OUTBOUND_CHECKS_AT_ONCE, pending.length) }, check));
  }

  /** One registration checked and made ready to store: owner and kind, connection, credentials encrypted. */
  private async prepareCreate(
    principal: Principal,
    dto: CreateServerDto,
    tenantsSeen: Map<string, boolean>,
    checkOutbound = true,
  ): Promise<ServerCreate> {
    if (dto.fromCatalog) dto = await this.fromCatalog.toRegistration(principal, dto);
    const { kind, tenantId } = resolveCreateTarget(principal, dto.kind, dto.tenantId);
    const name = cleanName(dto.name);
    if (tenantId && principal.type === 'admin') {
      let exists = tenantsSeen.get(tenantId);
      if (exists === undefined) tenantsSeen.set(tenantId, (exists = (await this.tenants.findById(tenantId)) !== null));
      if (!exists) throw new InvalidInputError('tenantId: no such tenant', [{ field: 'tenantId', message: 'no such tenant' }]);
    }
    const connection = { transport: dto.transport, url: dto.url ?? null, command: dto.command ?? null, args: dto.args ?? [], env: dto.env ?? {} };
    assertNoFieldErrors([
      ...connectionErrors(kind, connection),
      ...credentialsErrors(kind, dto.credentials, this.config.credentialEnvAllow),
      ...authErrors(kind, connection.transport, dto.auth),
    ]);
    if (checkOutbound && kind === ServerKind.CUSTOM && connection.url) await assertOutboundAllowed(this.outbound, connection.url);

    const id = timeOrderedUuid();
    const creds = dto.credentials ? splitCredentials(dto.credentials) : { secret: null, env: null };
    const auth = dto.auth ? splitAuth(dto.auth) : undefined;
    const enabled = dto.enabled ?? true;
    return {
      id,
      tenantId,
      name,
      kind,
      ...connection,
      headers: dto.headers ?? {},
      credentialsCipher: creds.secret ? this.cipher.encrypt(creds.secret, id) : null,
      credentialsEnv: creds.env,
      enabled,
      metadata: dto.metadata ?? {},
      discoveryIntervalSeconds: dto.discoveryIntervalSeconds ?? null,
      toolPolicy: dto.toolPolicy ?? 'open',
      appSlug: null,
      accountId: null,
      status: enabled ? ServerStatus.DISCOVERING : ServerStatus.DISCONNECTED,
      statusReason: enabled ? QUEUED : DISABLED,
      ...(auth ? { oauthConfig: auth.config, oauthClientSecretCipher: auth.secret ? this.cipher.seal(auth.secret, id) : null } : {}),
    };
  }

  async list(principal: Principal, query: ListServersQueryDto): Promise<ServerPageDto> {
    const filter: ServerFilter = {
      kinds: query.kind !== undefined ? [parseKind(query.kind)!] : undefined,
      status: query.status !== undefined ? parseStatus(query.status) : undefined,
      q: query.q?.trim() || undefined,
    };
    const page = await this.servers.list(principal, filter, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { servers: page.items.map((s) => toServerDto(s, principal)), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }

  /** list() as a JSON answer, kept until a server the caller may see changes. */
  listAnswer(principal: Principal, query: ListServersQueryDto): Promise<Answer> {
    const audience = audienceOf(principal);
    const key = `list:${audience === 'admin' ? 'admin' : audience.tenantId}:${JSON.stringify([query.kind, query.status, query.q, query.pageSize, query.pageToken])}`;
    return this.cache.answer(key, principal, async () => ({ value: await this.list(principal, query), subject: { audience } }));
  }

  async get(principal: Principal, id: string): Promise<ServerDto> {
    return toServerDto(await this.findVisible(principal, id), principal);
  }

  async update(principal: Principal, id: string, dto: UpdateServerDto): Promise<ServerDto> {
    const server = await this.findVisible(principal, id);
    assertWritable(principal, server);
    const given = Object.keys(dto).filter((k) => (dto as Record<string, unknown>)[k] !== undefined);
    if (given.length === 0) return toServerDto(server, principal);
    if (server.kind === ServerKind.INTEGRATION) {
      const fixed = given.filter((k) => !INTEGRATION_MUTABLE.has(k));
      const reason = 'is managed by Pipedream Connect for INTEGRATION servers; only name, enabled, metadata, discoveryIntervalSeconds and toolPolicy change';
      assertNoFieldErrors(fixed.map((field): FieldError => ({ field, message: reason })));
    }
    const connection = {
      transport: dto.transport ?? server.transport,
      url: dto.url === undefined ? server.url : dto.url,
      command: dto.command === undefined ? server.command : dto.command,
      args: dto.args ?? server.args,
      env: dto.env ?? server.env,
    };
    assertNoFieldErrors([
      ...connectionErrors(server.kind, connection),
      ...credentialsErrors(server.kind, dto.credentials, this.config.credentialEnvAllow),
      ...authErrors(server.kind, connection.transport, dto.auth),
    ]);
    const reached = connection.url !== server.url || connection.transport !== server.transport;
    if (server.kind === ServerKind.CUSTOM && connection.url && reached) await assertOutboundAllowed(this.outbound, connection.url);

    const change: ServerChange = {};
    if (dto.name !== undefined) change.name = cleanName(dto.name);
    if (dto.transport !== undefined) change.transport = dto.transport;
    if (dto.url !== undefined) change.url = dto.url;
    if (dto.command !== undefined) change.command = dto.command;
    if (dto.args !== undefined) change.args = dto.args;
    if (dto.env !== undefined) change.env = dto.env;
    if (dto.headers !== undefined) change.headers = dto.headers;
    if (dto.metadata !== undefined) change.metadata = dto.metadata;
    if (dto.enabled !== undefined) change.enabled = dto.enabled;
    if (dto.discoveryIntervalSeconds !== undefined) change.discoveryIntervalSeconds = dto.discoveryIntervalSeconds;
    if (dto.toolPolicy !== undefined) change.toolPolicy = dto.toolPolicy;
    if (dto.credentials === null) {
      change.credentialsCipher = null;
      change.credentialsEnv = null;
    } else if (dto.credentials !== undefined) {
      const creds = splitCredentials(dto.credentials);
      change.credentialsCipher = creds.secret ? this.cipher.encrypt(creds.secret, server.id) : null;
      change.credentialsEnv = creds.env;
    }
    if (dto.auth === null) {
      change.oauthConfig = null;
      change.oauthClientSecretCipher = null;
    } else if (dto.auth !== undefined) {
      const auth = splitAuth(dto.auth);
      change.oauthConfig = auth.config;
      change.oauthClientSecretCipher = auth.secret ? this.cipher.seal(auth.secret, server.id) : null;
    }

    const enabled = dto.enabled ?? server.enabled;
    // Giving any part of how the server is reached asks for a new discovery (credentials cannot be compared: sealed anew).
    const rediscover = enabled && (CONNECTION_FIELDS.some((f) => given.includes(f)) || (!server.enabled && dto.enabled === true));
    if (!enabled && server.enabled) {
      Object.assign(change, { status: ServerStatus.DISCONNECTED, statusReason: DISABLED });
    } else if (rediscover) {
      Object.assign(change, { status: ServerStatus.DISCOVERING, statusReason: QUEUED });
    }
    // The change and its audit record are written in one transaction: both or neither.
    const audited = this.audit.eventsOf(principal, [
      { action: 'server.update', resourceType: 'server', resourceId: server.id, tenantId: server.tenantId, detail: { name: change.name ?? server.name, fields: given.sort() } },
    ]);
    let updated = await this.servers.update(server.id, change, audited);
    await this.local?.serverChanged(server.id, { withdrawn: !updated.enabled });
    if (rediscover) updated = withRequest(updated, await this.requests.request([{ id: updated.id, tenantId: updated.tenantId }], 'updated'));
    return toServerDto(updated, principal);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const server = await this.findVisible(principal, id);
    assertWritable(principal, server);
    await this.servers.delete(
      server.id,
      this.audit.eventsOf(principal, [
        { action: 'server.delete', resourceType: 'server', resourceId: server.id, tenantId: server.tenantId, detail: { name: server.name, kind: server.kind } },
      ]),
    );
    await this.local?.serverChanged(server.id, { withdrawn: true });
    // Its sessions are closed by now (above); whatever its command left in its directory goes with it.
    if (server.transport === TransportType.STDIO) {
      await this.workspaces.remove(server.id).catch((err: Error) => this.logger.warn({ serverId: server.id, err: err.message }, 'the stdio working directory could not be removed'));
    }
  }

  /** Queues a discovery now: the server shows DISCOVERING until the worker records the outcome. */
  async discover(principal: Principal, id: string): Promise<ServerDto> {
    const server = await this.findVisible(principal, id);
    assertOwnerOrAdmin(principal, server, 'ask for discoveries');
    if (!server.enabled) throw new ConflictError('the server is disabled; enable it (PATCH enabled: true) to discover it');
    const audited = this.audit.eventsOf(principal, [
      { action: 'server.discover', resourceType: 'server', resourceId: server.id, tenantId: server.tenantId, detail: { name: server.name } },
    ]);
    const asked = await this.requests.request([{ id: server.id, tenantId: server.tenantId }], 'manual', audited);
    // Disabled between the lookup and the request (nothing was stamped, nor audited): say so rather than show a
    // discovery that will not run.
    if (asked.size === 0) throw new ConflictError('the server is disabled; enable it (PATCH enabled: true) to discover it');
    return toServerDto(withRequest(server, asked), principal);
  }

  /** The served tools (also of a server not live now); for the owner and the admin, also those not served and why (when any). */
  async tools(principal: Principal, id: string): Promise<ToolListDto> {
    const server = await this.findVisible(principal, id);
    const tools = await this.toolRepository.listServed(server.id, principal, { live: false });
    if (!isAdmin(principal) && server.tenantId !== principal.tenantId) return { serverId: server.id, tools };
    const withheld = await this.toolRepository.listWithheld(server.id);
    return { serverId: server.id, tools, ...(withheld.length > 0 ? { withheld } : {}) };
  }

  async discoveries(principal: Principal, id: string, query: DiscoveriesQueryDto): Promise<DiscoveryRunPageDto> {
    const server = await this.findVisible(principal, id);
    assertOwnerOrAdmin(principal, server, 'read the discovery history');
    const page = await this.runRepository.listByServer(server.id, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { serverId: server.id, runs: page.items.map(toDiscoveryRunDto), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }
}

/**
 * A server as its discovery request left it (DISCOVERING, queued, stamped with the database's clock), when it was
 * among the servers asked for. The request is discovery's bookkeeping: the server itself changed (and its updatedAt
 * with it) only if it was not shown queued already.
 */
export function withRequest(server: ServerRecord, asked: Map<string, Date>): ServerRecord {
  const at = asked.get(server.id);
  if (!at) return server;
  const queued = server.status === ServerStatus.DISCOVERING && server.statusReason === QUEUED;
  return { ...server, status: ServerStatus.DISCOVERING, statusReason: QUEUED, discoveryRequestedAt: at, updatedAt: queued ? server.updatedAt : at };
}

/** The audit record of a registration: names and labels, never a credential. */
function createdEntry(server: ServerCreate) {
  return {
    action: 'server.create',
    resourceType: 'server' as const,
    resourceId: server.id,
    tenantId: server.tenantId,
    detail: {
      name: server.name,
      kind: server.kind,
      transport: server.transport,
      hasCredentials: server.credentialsCipher !== null || server.credentialsEnv !== null,
      ...(server.toolPolicy && server.toolPolicy !== 'open' ? { toolPolicy: server.toolPolicy } : {}),
      ...(server.oauthConfig ? { auth: { ...server.oauthConfig, hasClientSecret: !!server.oauthClientSecretCipher } } : {}),
    },
  };
}

/** A refusal of one registration among several, naming the item (`servers.3.url`). */
function withinItem(err: unknown, item: string): unknown {
  const Refusal = err instanceof InvalidInputError ? InvalidInputError : err instanceof ForbiddenError ? ForbiddenError : undefined;
  if (!Refusal) return err;
  const refusal = err as DomainError;
  const errors = refusal.errors?.map((e) => ({ field: `${item}.${e.field}`, message: e.message }));
  const message = errors?.length ? errors.map((e) => `${e.field}: ${e.message}`).join('; ') : `${item}: ${refusal.message}`;
  return new Refusal(message, errors);
}
