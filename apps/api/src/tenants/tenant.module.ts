import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ApiKeyService } from './api-key.service';
import { TenantController } from './tenant.controller';
import { TenantLimitsService } from './tenant-limits.service';
import { TenantService } from './tenant.service';

@Module({
  imports: [AuditModule],
  controllers: [TenantController],
  providers: [TenantService, ApiKeyService, TenantLimitsService],
  exports: [TenantLimitsService],
})
export class TenantModule {}
