import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';
import { RegistryV0Controller, ServerJsonController } from './registry-v0.controller';
import { RegistryV0Service } from './registry-v0.service';

@Module({
  imports: [AuditModule],
  controllers: [CatalogController, RegistryV0Controller, ServerJsonController],
  providers: [CatalogService, RegistryV0Service],
  exports: [CatalogService],
})
export class CatalogModule {}
