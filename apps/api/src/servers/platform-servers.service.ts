import { DiscoveryRequests } from '@app/discovery';
import { AppConfig, APP_CONFIG, ConfigError } from '@app/config';
import { CredentialsCipher } from '@app/credentials';
import { ServerChange, ServerCreate, ServerRepository } from '@app/database';
import { StdioWorkspaces } from '@app/mcp';
import { ConflictError, connectionFingerprint, connectionOf, ServerCredentials, ServerKind, ServerRecord, ServerStatus, ToolPolicy, TransportType, timeOrderedUuid } from '@app/domain';
import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { AuditActor, AuditService } from '../audit/audit.service';
import { ExternalRegistration, parseExternalServersFile } from './external-servers.file';
import { splitCredentials } from './server.rules';

/** The in-process servers this process hosts, by name (the MCP lib's InProcessServers). */
export interface InternalServerCatalog {
  list(): { name: string }[];
}
export const INTERNAL_SERVER_CATALOG = Symbol('INTERNAL_SERVER_CATALOG');

/** The registration fields a platform server's source decides (its tool policy apart: changed only when it differs). */
type SourcedFields = 'transport' | 'url' | 'command' | 'args' | 'env' | 'headers' | 'enabled' | 'metadata' | 'discoveryIntervalSeconds';
/** A platform server as a start-up source wants it, its credentials in the clear. */
type Desired = Pick<ServerCreate, 'name' | SourcedFields> & { credentials: { secret: ServerCredentials | null; env: string | null }; toolPolicy: ToolPolicy };

/** What the source says of a server, as the row's fields (credentials apart: they are sealed under its id). */
function sourcedFields(d: Desired): Pick<ServerCreate, SourcedFields> {
  const { transport, url, command, args, env, headers, enabled, metadata, discoveryIntervalSeconds } = d;
  return { transport, url, command, args, env, headers, enabled, metadata, discoveryIntervalSeconds };
}

const sortedJson = (v: Record<string, unknown> | null | undefined) => JSON.stringify(Object.entries(v ?? {}).sort(([x], [y]) => x.localeCompare(y)));

/**
 * The platform servers that are not registered through the API, brought in line
 * with their sources at start: INTERNAL servers from the in-process servers
 * defined in code, EXTERNAL servers from EXTERNAL_SERVERS_FILE. A server no
 * longer in its source is removed. Each change is audited as the platform's.
 */
@Injectable()
export class PlatformServersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(PlatformServersService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly servers: ServerRepository,
    private readonly cipher: CredentialsCipher,
    private readonly requests: DiscoveryRequests,
    private readonly audit: AuditService,
    private readonly workspaces: StdioWorkspaces,
    @Optional() @Inject(INTERNAL_SERVER_CATALOG) private readonly catalog?: InternalServerCatalog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.syncExternal();
    await this.syncInternal();
    await this.pruneWorkspaces();
  }

  /** The stdio working directories of servers deleted while this process was not running (or by another one). */
  async pruneWorkspaces(): Promise<void> {
    try {
      const removed = await this.workspaces.prune((ids) => this.servers.existingIds(ids));
      if (removed.length > 0) this.logger.log({ removed: removed.length }, 'stdio working directories of servers that no longer exist removed');
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'stdio working directories could not be pruned');
    }
  }

  /** EXTERNAL_SERVERS_FILE, read and validated; none configured means no EXTERNAL servers. */
  async readExternalFile(): Promise<ExternalRegistration[]> {
    const path = this.config.externalServersFile;
    if (!path) return [];
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new ConfigError(`EXTERNAL_SERVERS_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return parseExternalServersFile(text, this.config.credentialEnvAllow);
  }

  async syncExternal(): Promise<void> {
    const entries = await this.readExternalFile();
    const desired = entries.map(
      (e): Desired => ({
        name: e.name,
        transport: e.transport,
        url: e.url ?? null,
        command: e.command ?? null,
        args: e.args ?? [],
        env: e.env ?? {},
        headers: e.headers ?? {},
        credentials: e.credentials ? splitCredentials(e.credentials) : { secret: null, env: null },
        enabled: e.enabled ?? true,
        metadata: e.metadata ?? {},
        discoveryIntervalSeconds: e.discoveryIntervalSeconds ?? null,
        toolPolicy: e.toolPolicy ?? 'open',
      }),
    );
    await this.sync(ServerKind.EXTERNAL, desired, 'EXTERNAL_SERVERS_FILE');
  }

  async syncInternal(catalog: InternalServerCatalog | undefined = this.catalog): Promise<void> {
    if (!catalog) return;
    const defined = catalog.list();
    // A process that hosts no in-process server cannot tell which exist: it leaves the rows alone.
    if (defined.length === 0) return;
    const desired = defined.map(
      (d): Desired => ({
        name: d.name,
        transport: TransportType.IN_PROCESS,
        url: null,
        command: null,
        args: [],
        env: {},
        headers: {},
        credentials: { secret: null, env: null },
        enabled: true,
        metadata: {},
        discoveryIntervalSeconds: null,
        // The deployment's own code: served as it defines itself.
        toolPolicy: 'open',
      }),
    );
    await this.sync(ServerKind.INTERNAL, desired, 'in-process servers');
  }

  private async sync(kind: ServerKind, desired: Desired[], source: string): Promise<void> {
    const actor: AuditActor = { type: 'system', source };
    for (const d of desired) {
      const existing = await this.servers.findPlatformByName(d.name);
      if (existing && existing.kind !== kind) {
        throw new ConfigError(`${source}: the name "${d.name}" is already used by the platform's ${existing.kind} server ${existing.id}`);
      }
      if (existing) await this.update(kind, existing, d, actor);
      else await this.create(kind, d, actor);
    }
    // The servers no longer in the source are removed with their audit records: both or neither.
    const removed = await this.servers.deletePlatformKindExcept(
      kind,
      desired.map((d) => d.name),
      (gone) => this.audit.eventsOf(actor, gone.map((g) => ({ action: 'server.delete', resourceType: 'server', resourceId: g.id, tenantId: null, detail: { name: g.name, kind } }))),
    );
    if (desired.length || removed.length) {
      this.logger.log({ kind, source, servers: desired.length, removed: removed.map((r) => r.name) }, 'platform servers synchronised');
    }
  }

  private async create(kind: ServerKind, d: Desired, actor: AuditActor): Promise<void> {
    const id = timeOrderedUuid();
    let server: ServerRecord;
    try {
      server = await this.servers.create({
        id,
        tenantId: null,
        name: d.name,
        kind,
        ...sourcedFields(d),
        credentialsCipher: d.credentials.secret ? this.cipher.encrypt(d.credentials.secret, id) : null,
        credentialsEnv: d.credentials.env,
        toolPolicy: d.toolPolicy,
        appSlug: null,
        accountId: null,
        status: d.enabled ? ServerStatus.DISCOVERING : ServerStatus.DISCONNECTED,
        statusReason: d.enabled ? 'discovery queued' : 'disabled',
      }, this.audit.eventsOf(actor, [{ action: 'server.create', resourceType: 'server', resourceId: id, tenantId: null, detail: { name: d.name, kind } }]));
    } catch (err) {
      // Another replica starting at the same moment registered it first: bring that row in line instead.
      if (!(err instanceof ConflictError)) throw err;
      const raced = await this.servers.findPlatformByName(d.name);
      if (!raced) throw err;
      return this.update(kind, raced, d, actor);
    }
    if (d.enabled) await this.requests.request([server.id], 'startup');
  }

  private async update(kind: ServerKind, s: ServerRecord, d: Desired, actor: AuditActor): Promise<void> {
    const stored = await this.servers.findCredentials(s.id);
    const credentialsChanged = !this.sameCredentials(s.id, stored?.credentialsCipher ?? null, stored?.credentialsEnv ?? null, d.credentials);
    // The wanted connection against the stored one. Credentials are sealed anew on every write: they are compared by
    // their plain value above, and enter both sides alike here.
    const reached = (c: Pick<ServerRecord, 'transport' | 'url' | 'command' | 'args' | 'env' | 'headers'>) =>
      connectionFingerprint(
        connectionOf(
          { ...s, transport: c.transport, url: c.url, command: c.command, args: c.args, env: c.env, headers: c.headers },
          { credentialsCipher: null, credentialsEnv: null },
        ),
      );
    const connectionChanged = credentialsChanged || reached(s) !== reached(d);
    const labelsChanged = sortedJson(s.metadata) !== sortedJson(d.metadata) || s.discoveryIntervalSeconds !== d.discoveryIntervalSeconds;
    const enabledChanged = s.enabled !== d.enabled;
    const policyChanged = s.toolPolicy !== d.toolPolicy;
    if (kind === ServerKind.INTERNAL) {
      // The code may have changed with this deployment: look again at what it offers.
      if (s.enabled) await this.requests.request([s.id], 'startup');
      return;
    }
    if (!connectionChanged && !labelsChanged && !enabledChanged && !policyChanged) return;
    const change: ServerChange = { ...sourcedFields(d), ...(policyChanged ? { toolPolicy: d.toolPolicy } : {}) };
    if (credentialsChanged) {
      change.credentialsCipher = d.credentials.secret ? this.cipher.encrypt(d.credentials.secret, s.id) : null;
      change.credentialsEnv = d.credentials.env;
    }
    const rediscover = d.enabled && (connectionChanged || (enabledChanged && d.enabled));
    if (!d.enabled) Object.assign(change, { status: ServerStatus.DISCONNECTED, statusReason: 'disabled' });
    else if (rediscover) Object.assign(change, { status: ServerStatus.DISCOVERING, statusReason: 'discovery queued' });
    const fields = [
      ...(connectionChanged ? ['connection'] : []),
      ...(labelsChanged ? ['labels'] : []),
      ...(enabledChanged ? ['enabled'] : []),
      ...(policyChanged ? ['toolPolicy'] : []),
    ];
    // The change and its audit record in one transaction: both or neither.
    await this.servers.update(s.id, change, this.audit.eventsOf(actor, [{ action: 'server.update', resourceType: 'server', resourceId: s.id, tenantId: null, detail: { name: d.name, kind, fields } }]));
    if (rediscover) await this.requests.request([s.id], 'startup');
  }

  private sameCredentials(serverId: string, cipher: string | null, env: string | null, wanted: Desired['credentials']): boolean {
    if (env !== wanted.env) return false;
    if (!cipher || !wanted.secret) return !cipher && !wanted.secret;
    const canonical = (c: ServerCredentials) => JSON.stringify([c.bearerToken ?? null, sortedJson(c.headers)]);
    try {
      return canonical(this.cipher.decrypt(cipher, serverId)) === canonical(wanted.secret);
    } catch {
      // Not readable with the configured keys: write it anew.
      return false;
    }
  }
}
