import { Principal } from '@app/domain';
import { Body, Controller, Delete, Get, Param, Post, Put } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import {
  ApiJsonBody,
  EXAMPLE_IDS,
  TOOL_CHANGES_EXAMPLE,
  TOOL_DECISION_EXAMPLE,
  TOOL_OVERRIDE_BODY_EXAMPLES,
  TOOL_OVERRIDE_EXAMPLE,
} from '../common/api-examples';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { DocumentedParam, ServerIdParam } from '../common/ids';
import { ToolChangeListDto, ToolDecisionBodyDto, ToolDecisionDto, ToolOverrideBodyDto, ToolOverrideDto, ToolOverrideListDto } from './server-tools.dto';
import { ServerToolsService } from './server-tools.service';

/** The `toolName` path parameter: a tool of the server, by the name it lists it under. */
const ToolNameParam = (): ParameterDecorator =>
  DocumentedParam(Param('toolName'), ApiParam({ name: 'toolName', description: "The tool's name as the server lists it (URL-encoded)", example: 'create_issue' }));

/** The body of a decision on a tool definition, with its example under `name`. */
const DecisionBody = (name: 'approve' | 'reject') =>
  ApiJsonBody(ToolDecisionBodyDto, { [name]: { summary: 'The hash GET tool-changes showed', value: { hash: TOOL_DECISION_EXAMPLE.hash } } });

@ApiTags('tool integrity')
@ApiAuthenticated()
@Controller('api/v1/servers/:id')
export class ServerToolsController {
  constructor(private readonly tools: ServerToolsService) {}

  @Get('tool-changes')
  @ApiEndpoint({
    summary: 'Tool definitions waiting for a decision, and those rejected, each with a field-by-field diff (its owner, or the admin)',
    description:
      "Under the server's toolPolicy pinned or approval, a new or changed definition is held here and not served (not searchable, not " +
      'callable, not in availableTools) until approved; a tool whose approved definition changed upstream is not served at all meanwhile. See docs/tool-integrity.md',
    ok: { type: ToolChangeListDto, example: TOOL_CHANGES_EXAMPLE },
    problems: [403, 404],
  })
  changes(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string): Promise<ToolChangeListDto> {
    return this.tools.changes(principal, id);
  }

  @Post('tool-changes/:toolName/approve')
  @ApiEndpoint({
    summary: "Approve a tool's waiting (or rejected) definition, named by its hash: it is served from now on",
    description: 'A hash that is not the definition the tool has now (it changed again meanwhile) is a 409: read tool-changes again. Audited.',
    ok: { type: ToolDecisionDto, example: TOOL_DECISION_EXAMPLE },
    problems: [400, 403, 404, 409],
  })
  @DecisionBody('approve')
  approve(
    @CurrentPrincipal() principal: Principal,
    @ServerIdParam() id: string,
    @ToolNameParam() toolName: string,
    @Body() body: ToolDecisionBodyDto,
  ): Promise<ToolDecisionDto> {
    return this.tools.decide(principal, id, toolName, body.hash, 'approve');
  }

  @Post('tool-changes/:toolName/reject')
  @ApiEndpoint({
    summary: "Reject a tool's waiting definition, named by its hash: the tool stays out until its definition changes again or is approved",
    description:
      'A changed tool whose new definition is rejected is not served at all (neither definition); should the server go back to the ' +
      'definition approved before, that one is served again. A stale hash is a 409. Audited.',
    ok: { type: ToolDecisionDto, example: { ...TOOL_DECISION_EXAMPLE, approval: 'rejected' } },
    problems: [400, 403, 404, 409],
  })
  @DecisionBody('reject')
  reject(
    @CurrentPrincipal() principal: Principal,
    @ServerIdParam() id: string,
    @ToolNameParam() toolName: string,
    @Body() body: ToolDecisionBodyDto,
  ): Promise<ToolDecisionDto> {
    return this.tools.decide(principal, id, toolName, body.hash, 'reject');
  }

  @Get('tool-overrides')
  @ApiEndpoint({
    summary: "The overrides put over the server's tools (its owner, or the admin)",
    ok: { type: ToolOverrideListDto, example: { serverId: EXAMPLE_IDS.server, overrides: [TOOL_OVERRIDE_EXAMPLE] } },
    problems: [403, 404],
  })
  async overrides(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string): Promise<ToolOverrideListDto> {
    return { serverId: id, overrides: await this.tools.overrides(principal, id) };
  }

  @Put('tools/:toolName/override')
  @ApiEndpoint({
    summary: "Override a tool's title, description or annotations, or disable it (its owner, or the admin for the platform's servers)",
    description:
      'Replaces the whole override. Search, availableTools, /mcp and GET tools show the overridden definition, marked in _meta ' +
      '(dev.mcp-registry/override: {fields}); calls reach the upstream tool by its own name. Kept across discoveries; an upstream change ' +
      'under an override is still a change to decide. Audited.',
    ok: { type: ToolOverrideDto, example: TOOL_OVERRIDE_EXAMPLE },
    problems: [400, 403, 404, 413],
  })
  @ApiJsonBody(ToolOverrideBodyDto, TOOL_OVERRIDE_BODY_EXAMPLES)
  putOverride(
    @CurrentPrincipal() principal: Principal,
    @ServerIdParam() id: string,
    @ToolNameParam() toolName: string,
    @Body() body: ToolOverrideBodyDto,
  ): Promise<ToolOverrideDto> {
    return this.tools.putOverride(principal, id, toolName, body);
  }

  @Delete('tools/:toolName/override')
  @ApiEndpoint({ summary: "Remove a tool's override: the server's own definition is served again (enabled, if it was disabled)", noContent: 'Removed', problems: [403, 404] })
  deleteOverride(@CurrentPrincipal() principal: Principal, @ServerIdParam() id: string, @ToolNameParam() toolName: string): Promise<void> {
    return this.tools.deleteOverride(principal, id, toolName);
  }
}
