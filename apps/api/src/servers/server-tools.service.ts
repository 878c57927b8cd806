import { HeldToolRecord, ToolDecision, ToolOverrideRecord, ToolReviewRepository } from '@app/database';
import { canonicalJson } from '@app/discovery';
import { InvalidInputError, Principal, ServerRecord, TOOL_FIELDS, ToolDefinition } from '@app/domain';
import { Injectable, Optional, Inject } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { LOCAL_SERVER_CHANGES, LocalServerChanges } from '../common/local-server-changes';
import { FieldDiffDto, OVERRIDE_LIMITS, ToolChangeDto, ToolChangeListDto, ToolDecisionDto, ToolOverrideBodyDto, ToolOverrideDto } from './server-tools.dto';
import { assertOwnerOrAdmin } from './server.rules';
import { ServerService } from './server.service';

/** Field by field, what differs between two definitions (a field absent on one side has no value there). */
export function diffDefinitions(before: ToolDefinition | null, after: ToolDefinition): FieldDiffDto[] {
  const out: FieldDiffDto[] = [];
  const b = (before ?? {}) as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  for (const field of TOOL_FIELDS) {
    if (b[field] === undefined && a[field] === undefined) continue;
    if (b[field] !== undefined && a[field] !== undefined && canonicalJson(b[field]) === canonicalJson(a[field])) continue;
    out.push({ field, ...(b[field] !== undefined ? { before: b[field] } : {}), ...(a[field] !== undefined ? { after: a[field] } : {}) });
  }
  return out;
}

function toChangeDto(r: HeldToolRecord): ToolChangeDto {
  return {
    toolName: r.name,
    status: r.approval,
    kind: r.approvedHash === null ? 'added' : 'changed',
    hash: r.hash,
    approvedHash: r.approvedHash,
    seenAt: r.seenAt.toISOString(),
    fields: diffDefinitions(r.approvedDefinition, r.definition),
    tool: r.definition,
    approved: r.approvedDefinition,
  };
}

/** The override as stored, its date as ISO 8601, and the tool as served under it. */
function toOverrideDto({ served, ...override }: ToolOverrideRecord): ToolOverrideDto {
  return { ...override, updatedAt: override.updatedAt.toISOString(), tool: served };
}

function toolNameOf(name: string): string {
  if (name.length === 0 || name.length > OVERRIDE_LIMITS.toolName) {
    throw new InvalidInputError(`toolName: must be 1 to ${OVERRIDE_LIMITS.toolName} characters`, [{ field: 'toolName', message: `must be 1 to ${OVERRIDE_LIMITS.toolName} characters` }]);
  }
  return name;
}

/**
 * What a server's owner (the admin for the platform's servers) decides about its tools: the definitions its
 * tool policy holds (approve, reject) and the overrides put over them. Every decision and override is audited in
 * its own transaction; a tenant never reaches another tenant's server (404), nor decides on the platform's (403).
 */
@Injectable()
export class ServerToolsService {
  constructor(
    private readonly servers: ServerService,
    private readonly review: ToolReviewRepository,
    private readonly audit: AuditService,
    @Optional() @Inject(LOCAL_SERVER_CHANGES) private readonly local?: LocalServerChanges,
  ) {}

  private async owned(principal: Principal, id: string, action: string): Promise<ServerRecord> {
    const server = await this.servers.findVisible(principal, id);
    assertOwnerOrAdmin(principal, server, action);
    return server;
  }

  async changes(principal: Principal, id: string): Promise<ToolChangeListDto> {
    const server = await this.owned(principal, id, 'read the tool changes');
    const held = await this.review.listHeld(server.id);
    return {
      serverId: server.id,
      toolPolicy: server.toolPolicy,
      pendingToolChanges: held.filter((h) => h.approval === 'pending').length,
      changes: held.map(toChangeDto),
    };
  }

  async decide(principal: Principal, id: string, toolName: string, hash: string, decision: ToolDecision): Promise<ToolDecisionDto> {
    const server = await this.owned(principal, id, 'decide on tool changes');
    const name = toolNameOf(toolName);
    const [event] = this.audit.eventsOf(principal, [
      { action: `server.${decision}-tool-change`, resourceType: 'server', resourceId: server.id, tenantId: server.tenantId, detail: { name: server.name, toolName: name, hash } },
    ]);
    const decided = await this.review.decide(server.id, name, hash, decision, event);
    if (decided.changed) await this.local?.serverChanged(server.id, { withdrawn: false });
    return { serverId: server.id, toolName: name, hash, approval: decided.approval, pendingToolChanges: decided.pendingToolChanges };
  }

  async putOverride(principal: Principal, id: string, toolName: string, body: ToolOverrideBodyDto): Promise<ToolOverrideDto> {
    const server = await this.owned(principal, id, 'override tools');
    const name = toolNameOf(toolName);
    const annotations = body.annotations ?? null;
    if (annotations && Buffer.byteLength(JSON.stringify(annotations)) > OVERRIDE_LIMITS.annotationsBytes) {
      const message = `must be at most ${OVERRIDE_LIMITS.annotationsBytes / 1024} KiB of JSON`;
      throw new InvalidInputError(`annotations: ${message}`, [{ field: 'annotations', message }]);
    }
    const input = { title: body.title ?? null, description: body.description ?? null, annotations, disabled: body.disabled ?? false };
    const fields = [...(['title', 'description', 'annotations'] as const).filter((f) => input[f] !== null), ...(input.disabled ? ['disabled'] : [])];
    const [event] = this.audit.eventsOf(principal, [
      { action: 'server.override-tool', resourceType: 'server', resourceId: server.id, tenantId: server.tenantId, detail: { name: server.name, toolName: name, fields } },
    ]);
    const stored = await this.review.putOverride(server.id, name, input, event);
    await this.local?.serverChanged(server.id, { withdrawn: false });
    return toOverrideDto(stored);
  }

  async deleteOverride(principal: Principal, id: string, toolName: string): Promise<void> {
    const server = await this.owned(principal, id, 'override tools');
    const name = toolNameOf(toolName);
    const [event] = this.audit.eventsOf(principal, [
      { action: 'server.remove-tool-override', resourceType: 'server', resourceId: server.id, tenantId: server.tenantId, detail: { name: server.name, toolName: name } },
    ]);
    await this.review.deleteOverride(server.id, name, event);
    await this.local?.serverChanged(server.id, { withdrawn: false });
  }

  async overrides(principal: Principal, id: string): Promise<ToolOverrideDto[]> {
    const server = await this.owned(principal, id, 'read the tool overrides');
    return (await this.review.listOverrides(server.id)).map(toOverrideDto);
  }
}
