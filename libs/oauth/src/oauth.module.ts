import { DatabaseModule } from '@app/database';
import { McpModule, UPSTREAM_AUTHORIZER } from '@app/mcp';
import { Global, Module } from '@nestjs/common';
import { UpstreamOAuthService } from './upstream-oauth.service';

/**
 * Upstream OAuth for every process that connects to servers (API replicas and workers alike): global, so that
 * the connection target resolver finds the UpstreamAuthorizer wherever it is made.
 */
@Global()
@Module({
  imports: [DatabaseModule, McpModule],
  providers: [UpstreamOAuthService, { provide: UPSTREAM_AUTHORIZER, useExisting: UpstreamOAuthService }],
  exports: [UpstreamOAuthService, UPSTREAM_AUTHORIZER],
})
export class OAuthModule {}
