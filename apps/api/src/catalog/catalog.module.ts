import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogSyncService } from '@app/catalog';
import { CatalogController } from './catalog.controller';
import { CatalogSourceController, CatalogSourceService } from './catalog-source.controller';
import { ServerModule } from '../servers/server.module';
import { CatalogService } from './catalog.service';
import { RegistryV0Controller, ServerJsonController } from './registry-v0.controller';
import { RegistryV0Service } from './registry-v0.service';

@Module({
  imports: [AuditModule, ServerModule],
  controllers: [CatalogSourceController, CatalogController, RegistryV0Controller, ServerJsonController],
  providers: [CatalogService, RegistryV0Service, CatalogSourceService, CatalogSyncService],
  exports: [CatalogService],
})
export class CatalogModule {}
