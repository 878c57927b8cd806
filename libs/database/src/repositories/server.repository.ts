import { ConflictError, QuotaExceededError, ServerKind, ServerRecord, ServerStatus, StoredCredentials, ToolPolicy, TransportType, viewerTenant } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { Prisma, PrismaClient } from '../generated/prisma/client';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { translatePrismaError } from '../prisma-errors';
import { ownerScopeOf, PLATFORM_SCOPE, ReadScope, visibleSql } from '../scope';
import { AuditEventInput, auditInsert, recordAuditIn } from './audit.repository';
import { Sql } from '../sql';
import { PRISMA, SQL } from '../tokens';
import { SERVER_COLUMNS, SERVER_FROM, ServerRow, toServerRecord, transportToDb, withDiscovery } from './server.mapper';

/** The registration fields a new row holds as the record shows them. */
type RegistrationFields =
  | 'id'
  | 'tenantId'
  | 'name'
  | 'kind'
  | 'transport'
  | 'url'
  | 'command'
  | 'args'
  | 'env'
  | 'headers'
  | 'credentialsEnv'
  | 'enabled'
  | 'metadata'
  | 'discoveryIntervalSeconds'
  | 'appSlug'
  | 'accountId'
  | 'status'
  | 'statusReason';

/** Everything a new server row holds; the id is chosen by the caller so credentials can be bound to it. */
export interface ServerCreate extends Pick<ServerRecord, RegistrationFields> {
  /** AES-256-GCM envelope (CredentialsCipher), never the plaintext. */
  credentialsCipher: string | null;
  /** The registration's `auth` without its secret (upstream OAuth). */
  oauthConfig?: { clientId?: string; scopes?: string[]; grant?: string } | null;
  /** AES-256-GCM envelope of `auth.clientSecret`. */
  oauthClientSecretCipher?: string | null;
  /** Which tool definitions are served (default open). */
  toolPolicy?: ToolPolicy;
}

/** The platform default of the servers a tenant may own, for a tenant without a limit of its own. */
export interface ServerQuota {
  maxServers: number;
}

/** The registration fields a change may touch (owner and kind never change). */
export type ServerChange = Partial<Omit<ServerCreate, 'id' | 'tenantId' | 'kind'>>;

export interface ServerFilter {
  kinds?: ServerKind[];
  status?: ServerStatus;
  /** Case-insensitive substring of the name or of what the server calls itself. */
  q?: string;
}

/** The domain's type, named here too for the repositories that read it. */
export type { StoredCredentials };

const LIST = 'servers';

function escapeLike(q: string): string {
  return q.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function conflictMessage(name: string): string {
  return `a server named "${name}" is already registered for this owner`;
}

@Injectable()
export class ServerRepository {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(SQL) private readonly sql: Sql,
  ) {}

  async create(input: ServerCreate, audit: AuditEventInput[] = [], quota?: ServerQuota): Promise<ServerRecord> {
    const [server] = await this.createMany([input], audit, quota);
    return server;
  }

  /**
   * Several servers in one statement, with the audit events that record them: all are stored or none. A name
   * already taken for its owner is a conflict that names it.
   *
   * With a quota, the servers of each tenant among them are counted against the tenant's limit (its own, else
   * `quota.maxServers`) in the same transaction, after locking the tenants' rows: of two registrations for one
   * tenant at the same moment, the second counts what the first stored, so no race takes a tenant past its limit.
   */
  async createMany(inputs: ServerCreate[], audit: AuditEventInput[] = [], quota?: ServerQuota): Promise<ServerRecord[]> {
    if (inputs.length === 0) return [];
    const tenants = [...new Set(inputs.map((i) => i.tenantId).filter((t): t is string => t !== null))].sort();
    if (!quota || tenants.length === 0) return this.insertMany(inputs, audit, (text, values) => this.sql.query<ServerRow>(text, values));
    return this.sql.transaction(async (query) => {
      const limits = await query<{ id: string; max: number | null }>(
        `SELECT id, (limits->>'maxServers')::int AS max FROM tenants WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`,
        [tenants],
      );
      const counts = await query<{ tenantId: string; n: number }>(
        `SELECT tenant_id AS "tenantId", count(*)::int AS n FROM servers WHERE tenant_id = ANY($1::uuid[]) GROUP BY tenant_id`,
        [tenants],
      );
      const held = new Map(counts.map((c) => [c.tenantId, c.n]));
      for (const { id, max } of limits) {
        const limit = max ?? quota.maxServers;
        const adding = inputs.filter((i) => i.tenantId === id).length;
        const has = held.get(id) ?? 0;
        if (has + adding > limit) {
          throw new QuotaExceededError(
            `the tenant may own at most ${limit} servers (maxServers) and owns ${has}; registering ${adding} more would pass it. ` +
              'Delete servers, or ask the administrator to raise the limit',
            { name: 'maxServers', value: limit, variable: 'TENANT_MAX_SERVERS' },
          );
        }
      }
      return this.insertMany(inputs, audit, query);
    });
  }

  private async insertMany(
    inputs: ServerCreate[],
    audit: AuditEventInput[],
    run: (text: string, values: unknown[]) => Promise<ServerRow[]>,
  ): Promise<ServerRecord[]> {
    const values: unknown[] = [];
    const rows = inputs.map((input) => {
      const at = values.length;
      values.push(
        input.id,
        input.tenantId,
        ownerScopeOf(input.tenantId),
        input.name,
        input.kind,
        transportToDb(input.transport),
        input.url,
        input.command,
        input.args,
        JSON.stringify(input.env),
        JSON.stringify(input.headers),
        input.credentialsCipher,
        input.credentialsEnv,
        input.enabled,
        JSON.stringify(input.metadata),
        input.discoveryIntervalSeconds,
        input.appSlug,
        input.accountId,
        input.status,
        input.statusReason,
        input.oauthConfig ? JSON.stringify(input.oauthConfig) : null,
        input.oauthClientSecretCipher ?? null,
        input.toolPolicy ?? 'open',
      );
      const $ = (n: number) => `$${at + n}`;
      return `(${$(1)}::uuid, ${$(2)}::uuid, ${$(3)}, ${$(4)}, ${$(5)}::"ServerKind", ${$(6)}::"Transport", ${$(7)}, ${$(8)}, ${$(9)}::text[], ${$(10)}::jsonb, ${$(11)}::jsonb,
               ${$(12)}, ${$(13)}, ${$(14)}, ${$(15)}::jsonb, ${$(16)}::int, ${$(17)}, ${$(18)}, ${$(19)}::"ServerStatus", ${$(20)},
               ${$(21)}::jsonb, ${$(22)}, ${$(23)})`;
    });
    const insert = `INSERT INTO servers (id, tenant_id, owner_scope, name, kind, transport, url, command, args, env, headers,
                              credentials_cipher, credentials_env, enabled, metadata, discovery_interval_seconds,
                              app_slug, account_id, status, status_reason, oauth_config, oauth_client_secret_cipher, tool_policy)
         VALUES ${rows.join(',\n                ')}
         RETURNING *`;
    const audited = audit.length > 0 ? auditInsert(audit, values.length + 1) : undefined;
    // A new server's discovery row (made by the insert's trigger, at the end of the statement) holds nothing yet.
    const created = `SELECT ${SERVER_COLUMNS} FROM created s LEFT JOIN server_discovery d ON false`;
    try {
      const stored = audited
        ? await run(`WITH created AS (${insert}), audited AS (${audited.text}) ${created}`, [...values, ...audited.values])
        : await run(`WITH created AS (${insert}) ${created}`, values);
      const byId = new Map(stored.map((row) => [row.id, toServerRecord(row)]));
      return inputs.map((input) => byId.get(input.id)!);
    } catch (err) {
      // 23505: a name is taken for its owner (the unique index on (owner_scope, name)).
      if ((err as { code?: string }).code === '23505') {
        throw new ConflictError(inputs.length === 1 ? conflictMessage(inputs[0].name) : await this.takenNames(inputs));
      }
      throw err;
    }
  }

  /** Which of these names are taken for their owners, said for a conflict. */
  private async takenNames(inputs: ServerCreate[]): Promise<string> {
    const taken = await this.sql
      .query<{ owner_scope: string; name: string }>(
        `SELECT owner_scope, name FROM servers WHERE (owner_scope, name) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [inputs.map((i) => ownerScopeOf(i.tenantId)), inputs.map((i) => i.name)],
      )
      .catch(() => []);
    if (taken.length === 0) return 'a name is already registered for its owner';
    const names = taken.map((t) => `"${t.name}"`);
    return `already registered for their owner: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ` and ${names.length - 20} more` : ''}`;
  }

  /** One server if the scope may see it, else null (a tenant never learns that another's exists). */
  async findById(id: string, scope: ReadScope): Promise<ServerRecord | null> {
    if (!isUuid(id)) return null;
    // The hottest read of the API (every server lookup): one plain statement.
    const rows = await this.sql.query<ServerRow>(
      `SELECT ${SERVER_COLUMNS} FROM ${SERVER_FROM} WHERE s.id = $1::uuid AND ${visibleSql('s.tenant_id', '$2')}`,
      [id, viewerTenant(scope)],
    );
    return rows.length ? toServerRecord(rows[0]) : null;
  }

  /** A platform server (no tenant) by its name. */
  async findPlatformByName(name: string): Promise<ServerRecord | null> {
    const row = await this.prisma.server.findUnique({ where: { ownerScope_name: { ownerScope: PLATFORM_SCOPE, name } }, include: { discovery: true } });
    return row ? toServerRecord(withDiscovery(row)) : null;
  }

  /** The platform's servers of one kind (the start-up sources INTERNAL and EXTERNAL). */
  async listPlatformByKind(kind: ServerKind): Promise<ServerRecord[]> {
    const rows = await this.prisma.server.findMany({ where: { tenantId: null, kind }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], include: { discovery: true } });
    return rows.map((r) => toServerRecord(withDiscovery(r)));
  }

  /**
   * What the scope may see, oldest first, keyset-paginated on (created_at, id):
   * a row inserted while a client pages through lands after every token already
   * handed out, so no row is skipped or shown twice.
   */
  async list(scope: ReadScope, filter: ServerFilter, page: PageRequest): Promise<Page<ServerRecord>> {
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (v: unknown) => `$${values.push(v)}`;
    if (scope.type !== 'admin') where.push(visibleSql('s.tenant_id', param(viewerTenant(scope))));
    if (filter.kinds?.length) where.push(`s.kind = ANY(${param(filter.kinds)}::"ServerKind"[])`);
    if (filter.status) where.push(`s.status = ${param(filter.status)}::"ServerStatus"`);
    if (filter.q) {
      const like = param(`%${escapeLike(filter.q)}%`);
      where.push(`(s.name ILIKE ${like} OR s.server_name ILIKE ${like} OR s.server_title ILIKE ${like})`);
    }
    if (page.pageToken) {
      const c = decodeCursor(LIST, page.pageToken);
      where.push(`(s.created_at, s.id) > (${param(c.at)}::timestamptz, ${param(c.id)}::uuid)`);
    }
    const rows = await this.sql.query<ServerRow>(
      `SELECT ${SERVER_COLUMNS} FROM ${SERVER_FROM} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY s.created_at, s.id LIMIT ${param(page.pageSize + 1)}`,
      values,
    );
    return toPage(rows.map(toServerRecord), page.pageSize, LIST, (r) => ({ at: r.createdAt, id: r.id }));
  }

  /**
   * Changes a server the caller has already found in its scope, with the audit events that record it: both or
   * neither. A tool policy changed to `open` approves every definition that waits (or was rejected), in the same
   * transaction: under `open` nothing is held.
   */
  async update(id: string, change: ServerChange, audit: AuditEventInput[] = []): Promise<ServerRecord> {
    const { oauthConfig, ...rest } = change;
    const opened = change.toolPolicy === 'open';
    const data: Prisma.ServerUpdateInput = {
      ...rest,
      ...(oauthConfig === null ? { oauthConfig: Prisma.DbNull } : oauthConfig !== undefined ? { oauthConfig } : {}),
      ...(opened ? { pendingToolChanges: 0 } : {}),
      transport: change.transport ? transportToDb(change.transport) : undefined,
    };
    try {
      return await this.prisma.$transaction(async (tx) => {
        const row = await tx.server.update({ where: { id }, data, include: { discovery: true } });
        if (opened) {
          await tx.tool.updateMany({
            where: { serverId: id, approval: { not: 'approved' } },
            data: { approval: 'approved', approvedHash: null, approvedDefinition: Prisma.DbNull },
          });
        }
        await recordAuditIn(tx, audit);
        return toServerRecord(withDiscovery(row));
      });
    } catch (err) {
      translatePrismaError(err, { conflict: conflictMessage(change.name ?? ''), notFound: `server ${id} not found` });
    }
  }

  /** Deletes a server with the audit events that record it: both or neither. */
  async delete(id: string, audit: AuditEventInput[] = []): Promise<void> {
    try {
      await this.prisma.$transaction(async (tx) => {
        await tx.server.delete({ where: { id } });
        await recordAuditIn(tx, audit);
      });
    } catch (err) {
      translatePrismaError(err, { notFound: `server ${id} not found` });
    }
  }

  /**
   * Removes the platform's servers of one kind whose names are not listed, with the audit events `audit` makes for
   * those removed (both or neither); returns those removed.
   */
  async deletePlatformKindExcept(
    kind: ServerKind,
    keep: string[],
    audit: (gone: { id: string; name: string }[]) => AuditEventInput[] = () => [],
  ): Promise<{ id: string; name: string }[]> {
    return this.prisma.$transaction(async (tx) => {
      const gone = await tx.server.findMany({ where: { tenantId: null, kind, name: { notIn: keep } }, select: { id: true, name: true } });
      if (gone.length === 0) return [];
      await tx.server.deleteMany({ where: { id: { in: gone.map((g) => g.id) }, kind } });
      await recordAuditIn(tx, audit(gone));
      return gone;
    });
  }

  /** Which of these ids are servers that exist (any owner): for housekeeping, never for a response. */
  async existingIds(ids: string[]): Promise<Set<string>> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return new Set();
    const rows = await this.prisma.server.findMany({ where: { id: { in: valid } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }

  /** The encrypted credentials or environment reference of a server: for the connector, never for a response. */
  async findCredentials(id: string): Promise<StoredCredentials | null> {
    if (!isUuid(id)) return null;
    return this.prisma.server.findUnique({ where: { id }, select: { credentialsCipher: true, credentialsEnv: true } });
  }
}
