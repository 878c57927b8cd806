import { ConflictError, viewerTenant } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { QueryResultRow } from 'pg';
import { decodeCursor, isUuid, Page, PageRequest, toPage } from '../page';
import { ownerScopeOf, ReadScope, visibleSql } from '../scope';
import { Sql } from '../sql';
import { SQL } from '../tokens';
import { AuditEventInput, auditInsert } from './audit.repository';

/** One member of a virtual server: a whole server (toolName null) or one of its tools. */
export interface VirtualServerMember {
  serverId: string;
  toolName: string | null;
}

export interface VirtualServerRecord {
  id: string;
  /** null: the platform's. */
  tenantId: string | null;
  name: string;
  description: string | null;
  /** In the order given, each with its server's name as it is now. */
  members: (VirtualServerMember & { serverName: string })[];
  createdAt: Date;
  updatedAt: Date;
}

export interface VirtualServerCreate {
  id: string;
  tenantId: string | null;
  name: string;
  description: string | null;
  members: VirtualServerMember[];
}

export interface VirtualServerChange {
  name?: string;
  description?: string | null;
  members?: VirtualServerMember[];
}

/** What a member check needs of a server a scope may see. */
export interface MemberServer {
  id: string;
  name: string;
  tenantId: string | null;
}

/** A row as COLUMNS reads it: the record's shape already, members null when there are none. */
type Row = Omit<VirtualServerRecord, 'members'> & { members: VirtualServerRecord['members'] | null };

const LIST = 'virtual-servers';

const COLUMNS = `v.id, v.tenant_id AS "tenantId", v.name, v.description, v.created_at AS "createdAt", v.updated_at AS "updatedAt",
  (SELECT json_agg(json_build_object('serverId', m.server_id, 'toolName', m.tool_name, 'serverName', s.name) ORDER BY m.position)
     FROM virtual_server_members m JOIN servers s ON s.id = m.server_id WHERE m.virtual_server_id = v.id) AS members`;

/** A tenant sees its own and the platform's; the admin every one (the rule servers are seen by). */
const VISIBLE = visibleSql('v.tenant_id', '$2');

function toRecord(r: Row): VirtualServerRecord {
  return { ...r, members: r.members ?? [] };
}

type Query = <R extends QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]>;

/** Virtual servers and their members; every write carries its audit records in the same transaction. */
@Injectable()
export class VirtualServerRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  async create(input: VirtualServerCreate, audit: AuditEventInput[]): Promise<VirtualServerRecord> {
    return this.write(input.name, async (query) => {
      await query(`INSERT INTO virtual_servers (id, tenant_id, owner_scope, name, description) VALUES ($1, $2, $3, $4, $5)`, [
        input.id,
        input.tenantId,
        ownerScopeOf(input.tenantId),
        input.name,
        input.description,
      ]);
      await insertMembers(query, input.id, input.members);
      await insertAudit(query, audit);
      return input.id;
    });
  }

  async update(id: string, change: VirtualServerChange, audit: AuditEventInput[]): Promise<VirtualServerRecord> {
    return this.write(change.name ?? '', async (query) => {
      await query(
        `UPDATE virtual_servers SET name = COALESCE($2, name), description = CASE WHEN $3::boolean THEN $4 ELSE description END, updated_at = now()
          WHERE id = $1`,
        [id, change.name ?? null, change.description !== undefined, change.description ?? null],
      );
      if (change.members) {
        await query(`DELETE FROM virtual_server_members WHERE virtual_server_id = $1`, [id]);
        await insertMembers(query, id, change.members);
      }
      await insertAudit(query, audit);
      return id;
    });
  }

  /** Deletes the virtual server with its audit record; false when it was already gone. */
  async delete(id: string, audit: AuditEventInput[]): Promise<boolean> {
    return this.sql.transaction(async (query) => {
      const gone = await query<{ id: string }>(`DELETE FROM virtual_servers WHERE id = $1 RETURNING id`, [id]);
      if (gone.length > 0) await insertAudit(query, audit);
      return gone.length > 0;
    });
  }

  /** One virtual server if the scope may see it, else null (a tenant never learns that another's exists). */
  async findById(id: string, scope: ReadScope): Promise<VirtualServerRecord | null> {
    if (!isUuid(id)) return null;
    const rows = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM virtual_servers v WHERE v.id = $1::uuid AND ${VISIBLE}`, [id, viewerTenant(scope)], 'virtual.find');
    return rows.length ? toRecord(rows[0]) : null;
  }

  /** What the scope may see, oldest first, keyset-paginated on (created_at, id). */
  async list(scope: ReadScope, page: PageRequest): Promise<Page<VirtualServerRecord>> {
    const after = page.pageToken ? decodeCursor(LIST, page.pageToken) : null;
    const rows = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM virtual_servers v
        WHERE ($1::timestamptz IS NULL OR (v.created_at, v.id) > ($1::timestamptz, $3::uuid)) AND ${VISIBLE}
        ORDER BY v.created_at, v.id LIMIT $4`,
      [after?.at ?? null, viewerTenant(scope), after?.id ?? null, page.pageSize + 1],
    );
    return toPage(rows.map(toRecord), page.pageSize, LIST, (r) => ({ at: r.createdAt, id: r.id }));
  }

  /** Those of these servers that the scope may see (an id not among them is unknown or another tenant's). */
  async visibleServers(ids: string[], scope: ReadScope): Promise<MemberServer[]> {
    const valid = ids.filter(isUuid);
    if (valid.length === 0) return [];
    const rows = await this.sql.query<{ id: string; name: string; tenant_id: string | null }>(
      `SELECT id, name, tenant_id FROM servers WHERE id = ANY($1::uuid[]) AND ${visibleSql('tenant_id', '$2')}`,
      [valid, viewerTenant(scope)],
    );
    return rows.map((r) => ({ id: r.id, name: r.name, tenantId: r.tenant_id }));
  }

  private async write(name: string, work: (query: Query) => Promise<string>): Promise<VirtualServerRecord> {
    try {
      const id = await this.sql.transaction(work);
      const [row] = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM virtual_servers v WHERE v.id = $1::uuid AND ${VISIBLE}`, [id, null], 'virtual.find');
      return toRecord(row);
    } catch (err) {
      const code = (err as { code?: string }).code;
      // 23505: the name is taken for its owner; 23503: a member server was deleted while the request ran.
      if (code === '23505') throw new ConflictError(`a virtual server named "${name}" already exists for this owner`);
      if (code === '23503') throw new ConflictError('a member server was deleted meanwhile; send the request again');
      throw err;
    }
  }
}

async function insertMembers(query: Query, id: string, members: VirtualServerMember[]): Promise<void> {
  if (members.length === 0) return;
  await query(
    `INSERT INTO virtual_server_members (virtual_server_id, position, server_id, tool_name)
     SELECT $1, p - 1, s, t FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS m(s, t, p)`,
    [id, members.map((m) => m.serverId), members.map((m) => m.toolName)],
  );
}

async function insertAudit(query: Query, audit: AuditEventInput[]): Promise<void> {
  if (audit.length === 0) return;
  const insert = auditInsert(audit, 1);
  await query(insert.text, insert.values);
}
