import { OAuthModule } from '@app/oauth';
import { Module } from '@nestjs/common';
import { ServerModule } from '../servers/server.module';
import { OAuthFlowService } from './oauth-flow.service';
import { OAuthController } from './oauth.controller';

/** Upstream OAuth's endpoints: authorize, the callback, forgetting, the client metadata document. */
@Module({
  imports: [OAuthModule, ServerModule],
  controllers: [OAuthController],
  providers: [OAuthFlowService],
})
export class OAuthApiModule {}
