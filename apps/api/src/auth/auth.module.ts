import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { WriteFenceMiddleware } from '../common/answer-cache.module';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyMiddleware } from './api-key.middleware';
import { AuthService } from './auth.service';

/** The bearer-key guard, installed for every route; AuthService for endpoints outside Nest's routing (/mcp). */
@Global()
@Module({
  providers: [AuthService, ApiKeyGuard, ApiKeyMiddleware, { provide: APP_GUARD, useExisting: ApiKeyGuard }],
  exports: [AuthService, ApiKeyGuard],
})
export class AuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // The key first; then, for an authenticated write, the fence around the answers kept for reads.
    consumer.apply(ApiKeyMiddleware, WriteFenceMiddleware).forRoutes('/{*path}');
  }
}
