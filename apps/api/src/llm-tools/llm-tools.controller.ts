import { Principal } from '@app/domain';
import { Body, Controller, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { CallToolRequestDto, CallToolResultDto, SearchToolsRequestDto, SearchToolsResponseDto } from './llm-tools.dto';
import { RegistryToolsService } from './registry-tools.service';
import { ApiJsonBody, CALL_TOOL_ANSWER_EXAMPLE, CALL_TOOL_REQUEST_EXAMPLE, SEARCH_TOOLS_ANSWER_EXAMPLE, SEARCH_TOOLS_REQUEST_EXAMPLE } from '../common/api-examples';

@ApiTags('llm')
@ApiAuthenticated()
@Controller('api/v1/llm')
export class LlmToolsController {
  constructor(private readonly tools: RegistryToolsService) {}

  @Post('mcp-search-tools')
  @ApiEndpoint({
    summary: 'The tools that best fit a task, among those of connected servers the caller may see',
    description:
      'Ranks tools by their names, titles, descriptions, parameter names and descriptions, and their server\'s name. ' +
      'A tool discovered on any replica is searchable here within about a second.',
    ok: { type: SearchToolsResponseDto, example: SEARCH_TOOLS_ANSWER_EXAMPLE },
    problems: [400],
  })
  @ApiJsonBody(SearchToolsRequestDto, { task: { summary: 'Tools for a task, in plain words', value: SEARCH_TOOLS_REQUEST_EXAMPLE } })
  search(@CurrentPrincipal() principal: Principal, @Body() body: SearchToolsRequestDto): Promise<SearchToolsResponseDto> {
    return this.tools.searchTools(principal, body);
  }

  @Post('mcp-call-tool')
  @ApiEndpoint({
    summary: "Call a tool on its server with the credentials the server's kind demands; answers the upstream CallToolResult unchanged",
    description:
      'Only tools that the last discovery found on a connected server the caller may see. A tool that fails answers 200 with ' +
      'isError: true (that is the tool\'s answer); a server that fails or does not answer in time is a 502 or 504. Limited per ' +
      'tenant to RATE_LIMIT_PER_MINUTE calls (429 with Retry-After). Every call is audited without its arguments or result.',
    ok: { type: CallToolResultDto, example: CALL_TOOL_ANSWER_EXAMPLE },
    problems: [400, 404, 409, 429, 502, 504],
  })
  @ApiJsonBody(CallToolRequestDto, { call: { summary: 'Call a tool found by mcp-search-tools', value: CALL_TOOL_REQUEST_EXAMPLE } })
  call(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CallToolRequestDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CallToolResultDto> {
    // A caller that hangs up cancels the upstream call.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    return this.tools.callTool(principal, body, { channel: 'rpc', signal: abort.signal }) as Promise<CallToolResultDto>;
  }
}
