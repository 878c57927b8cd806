import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/auth.decorators';
import { ApiAuthenticated, ApiProblems } from '../common/api-problems.decorator';
import { AuditPageDto, AuditQueryDto } from './audit.dto';
import { AuditService } from './audit.service';
import { AUDIT_EVENT_EXAMPLE, PAGE_TOKEN_EXAMPLE } from '../common/api-examples';

@ApiTags('audit')
@ApiAuthenticated()
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @AdminOnly()
  @ApiOperation({ summary: 'The audit log: every change, who made it and when (admin only)' })
  @ApiOkResponse({ type: AuditPageDto, example: { events: [AUDIT_EVENT_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } })
  @ApiProblems(400, 403)
  list(@Query() query: AuditQueryDto): Promise<AuditPageDto> {
    return this.audit.list(query);
  }
}
