import { DatabaseModule } from '@app/database';
import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { CatalogModule } from './catalog/catalog.module';
import { AnswerCacheModule } from './common/answer-cache.module';
import { JsonBodyMiddleware } from './http/json-body.middleware';
import { IntegrationModule } from './integrations/integration.module';
import { ServerInfoModule } from './llm-tools/server-info.module';
import { OAuthApiModule } from './oauth/oauth-api.module';
import { ServerModule } from './servers/server.module';
import { TenantModule } from './tenants/tenant.module';
import { WebhookModule } from './webhooks/webhook.module';

/** The REST and RPC API: keys and tenants, servers by kind, integrations, webhooks, the audit log. */
@Module({
  imports: [DatabaseModule, AnswerCacheModule, AuthModule, AuditModule, TenantModule, ServerModule, IntegrationModule, ServerInfoModule, OAuthApiModule, CatalogModule, WebhookModule],
})
export class RestApiModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(JsonBodyMiddleware).forRoutes('/{*path}');
  }
}
