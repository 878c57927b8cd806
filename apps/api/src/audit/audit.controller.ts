import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
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
  @ApiEndpoint({
    summary: 'The audit log: every change, who made it and when (admin only)',
    ok: { type: AuditPageDto, example: { events: [AUDIT_EVENT_EXAMPLE], nextPageToken: PAGE_TOKEN_EXAMPLE } },
    problems: [400, 403],
  })
  list(@Query() query: AuditQueryDto): Promise<AuditPageDto> {
    return this.audit.list(query);
  }
}
