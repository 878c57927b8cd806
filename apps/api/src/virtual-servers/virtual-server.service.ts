import { DEFAULT_PAGE_SIZE, ReadScope, ToolRepository, VirtualServerMember, VirtualServerRecord, VirtualServerRepository } from '@app/database';
import { FieldError, ForbiddenError, InvalidInputError, NotFoundError, Principal, timeOrderedUuid, viewerTenant } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { CreateVirtualServerDto, ListVirtualServersQueryDto, UpdateVirtualServerDto } from './virtual-server.dto';
import type { VirtualServerDto, VirtualServerPageDto, VirtualToolListDto } from './virtual-server.dto';
import { VirtualToolsService } from './virtual-tools.service';

export function toVirtualServerDto(v: VirtualServerRecord): VirtualServerDto {
  return {
    id: v.id,
    name: v.name,
    description: v.description,
    tenantId: v.tenantId,
    servers: v.members.filter((m) => m.toolName === null).map((m) => m.serverId),
    tools: v.members.filter((m) => m.toolName !== null).map((m) => ({ serverId: m.serverId, toolName: m.toolName! })),
    endpoint: `/mcp/v/${v.id}`,
    createdAt: v.createdAt.toISOString(),
    updatedAt: v.updatedAt.toISOString(),
  };
}

function invalid(errors: FieldError[]): InvalidInputError {
  return new InvalidInputError(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalid([{ field: 'name', message: 'must not be blank' }]);
  return trimmed;
}

const UNKNOWN = 'no server with this id among those you may see';

/**
 * Virtual servers: a tenant makes them from the servers it may see (its own and the platform's), the
 * administrator makes the platform's from platform servers only (every tenant sees and may use those, as it
 * sees platform servers). Each change is audited in the transaction that makes it, and logged to the change feed
 * there too (by the database's triggers), which tells every replica's open /mcp/v/{id} streams.
 */
@Injectable()
export class VirtualServerService {
  constructor(
    private readonly repository: VirtualServerRepository,
    private readonly toolRepository: ToolRepository,
    private readonly audit: AuditService,
    private readonly tools: VirtualToolsService,
  ) {}

  async create(principal: Principal, dto: CreateVirtualServerDto): Promise<VirtualServerDto> {
    const tenantId = viewerTenant(principal);
    const name = cleanName(dto.name);
    const members = await this.members(tenantId, dto.servers ?? [], dto.tools ?? []);
    if (members.length === 0) throw invalid([{ field: 'servers', message: 'give at least one server (servers) or tool (tools)' }]);
    const id = timeOrderedUuid();
    const created = await this.repository.create(
      { id, tenantId, name, description: dto.description ?? null, members },
      this.audit.eventsOf(principal, [{ action: 'virtual-server.create', resourceType: 'virtual-server', resourceId: id, tenantId, detail: summary(name, members) }]),
    );
    return toVirtualServerDto(created);
  }

  async list(principal: Principal, query: ListVirtualServersQueryDto): Promise<VirtualServerPageDto> {
    const page = await this.repository.list(principal, { pageSize: query.pageSize ?? DEFAULT_PAGE_SIZE, pageToken: query.pageToken });
    return { virtualServers: page.items.map(toVirtualServerDto), ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
  }

  async get(principal: Principal, id: string): Promise<VirtualServerDto> {
    return toVirtualServerDto(await this.findVisible(principal, id));
  }

  /** The tools its MCP endpoint lists to this caller now, with where each goes. */
  async toolsOf(principal: Principal, id: string): Promise<VirtualToolListDto> {
    const virtual = await this.findVisible(principal, id);
    return { tools: (await this.tools.tools(principal, virtual)).map((t) => ({ name: t.name, serverId: t.serverId, toolName: t.toolName })) };
  }

  async update(principal: Principal, id: string, dto: UpdateVirtualServerDto): Promise<VirtualServerDto> {
    const virtual = await this.findWritable(principal, id);
    const given = Object.keys(dto).filter((k) => (dto as Record<string, unknown>)[k] !== undefined);
    if (given.length === 0) return toVirtualServerDto(virtual);
    // Members given (servers, tools or both) replace the whole selection; a list not given counts as empty.
    const members = dto.servers !== undefined || dto.tools !== undefined ? await this.members(virtual.tenantId, dto.servers ?? [], dto.tools ?? []) : undefined;
    if (members && members.length === 0) throw invalid([{ field: 'servers', message: 'give at least one server (servers) or tool (tools)' }]);
    const name = dto.name === undefined ? undefined : cleanName(dto.name);
    const updated = await this.repository.update(
      virtual.id,
      { name, description: dto.description, members },
      this.audit.eventsOf(principal, [
        {
          action: 'virtual-server.update',
          resourceType: 'virtual-server',
          resourceId: virtual.id,
          tenantId: virtual.tenantId,
          detail: { ...summary(name ?? virtual.name, members ?? virtual.members), fields: given.sort() },
        },
      ]),
    );
    return toVirtualServerDto(updated);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const virtual = await this.findWritable(principal, id);
    const gone = await this.repository.delete(
      virtual.id,
      this.audit.eventsOf(principal, [
        { action: 'virtual-server.delete', resourceType: 'virtual-server', resourceId: virtual.id, tenantId: virtual.tenantId, detail: { name: virtual.name } },
      ]),
    );
    if (!gone) throw new NotFoundError(`virtual server ${id} not found`);
  }

  /** A virtual server the caller may see and use, else 404 (a tenant never learns that another's exists). */
  async findVisible(principal: Principal, id: string): Promise<VirtualServerRecord> {
    const virtual = await this.repository.findById(id, principal);
    if (!virtual) throw new NotFoundError(`virtual server ${id} not found`);
    return virtual;
  }

  private async findWritable(principal: Principal, id: string): Promise<VirtualServerRecord> {
    const virtual = await this.findVisible(principal, id);
    if (principal.type === 'tenant' && virtual.tenantId !== principal.tenantId) {
      throw new ForbiddenError("only the platform administrator may change the platform's virtual servers");
    }
    return virtual;
  }

  /**
   * The members as given, checked against what the owner may see: a tenant's own servers and the platform's,
   * or for the platform's virtual servers the platform's servers only (a tenant's server would reach every
   * tenant). An unknown server and another tenant's are refused alike. A single tool must be one that the
   * server's last discovery found; a server named whole is not named again for one of its tools.
   */
  private async members(tenantId: string | null, servers: string[], tools: { serverId: string; toolName: string }[]): Promise<VirtualServerMember[]> {
    const scope: ReadScope = tenantId ? { type: 'tenant', tenantId } : { type: 'admin' };
    const ids = [...new Set([...servers, ...tools.map((t) => t.serverId)])];
    const found = new Map((await this.repository.visibleServers(ids, scope)).map((s) => [s.id, s]));
    const errors: FieldError[] = [];
    const check = (field: string, serverId: string): boolean => {
      const server = found.get(serverId);
      if (!server) errors.push({ field, message: UNKNOWN });
      else if (tenantId === null && server.tenantId !== null) {
        errors.push({ field, message: `server "${server.name}" belongs to a tenant; the platform's virtual servers are made of platform servers only` });
      } else return true;
      return false;
    };
    const whole = new Set<string>();
    servers.forEach((id, i) => {
      if (whole.has(id)) errors.push({ field: `servers.${i}`, message: 'is given twice' });
      else if (check(`servers.${i}`, id)) whole.add(id);
    });
    const definitions = await this.toolRepository.listServedByServers(tools.map((t) => t.serverId).filter((id) => found.has(id)), scope, { live: false });
    const picked = new Set<string>();
    tools.forEach((t, i) => {
      const key = `${t.serverId}\u0000${t.toolName}`;
      if (!check(`tools.${i}.serverId`, t.serverId)) return;
      if (whole.has(t.serverId)) errors.push({ field: `tools.${i}.serverId`, message: 'this server is in servers already, with every tool it has' });
      else if (picked.has(key)) errors.push({ field: `tools.${i}`, message: 'is given twice' });
      else if (!definitions.get(t.serverId)?.some((d) => d.name === t.toolName)) {
        errors.push({ field: `tools.${i}.toolName`, message: `server "${found.get(t.serverId)!.name}" has no tool of this name served (as last discovered, approved and not disabled)` });
      }
      picked.add(key);
    });
    if (errors.length > 0) throw invalid(errors);
    return [...servers.map((serverId) => ({ serverId, toolName: null })), ...tools.map((t) => ({ serverId: t.serverId, toolName: t.toolName }))];
  }
}

/** The audit detail of a selection: names and counts, never more. */
function summary(name: string, members: { toolName: string | null }[]): Record<string, unknown> {
  return { name, servers: members.filter((m) => m.toolName === null).length, tools: members.filter((m) => m.toolName !== null).length };
}
