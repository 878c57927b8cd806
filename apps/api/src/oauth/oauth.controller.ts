import { Principal } from '@app/domain';
import { Controller, Delete, Get, Header, Post, Query, Res } from '@nestjs/common';
import { ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { UpstreamOAuthService } from '@app/oauth';
import { CurrentPrincipal, Public } from '../auth/auth.decorators';
import { ApiEndpoint } from '../common/api-endpoint.decorator';
import { ApiAuthenticated } from '../common/api-problems.decorator';
import { IdParam } from '../common/ids';
import { AuthorizationForgottenDto, AuthorizationStartDto, ClientMetadataDocumentDto } from './oauth.dto';
import { OAuthFlowService } from './oauth-flow.service';
import { callbackPage } from './oauth-page';

function one(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

@ApiTags('oauth')
@Controller()
export class OAuthController {
  constructor(
    private readonly flow: OAuthFlowService,
    private readonly oauth: UpstreamOAuthService,
  ) {}

  @Post('api/v1/servers/:id/authorize')
  @ApiAuthenticated()
  @ApiEndpoint({
    summary: 'Start the authorization of a server that requires OAuth (its owner: the tenant for CUSTOM, the admin for BUILT_IN)',
    description:
      "Answers the authorization server's URL for a person to open. After consent the authorization server sends the browser to " +
      '`{PUBLIC_URL}/oauth/callback`, which stores the tokens (encrypted) and queues a discovery. The link is good for 10 minutes and ' +
      'once. A server no discovery has reached yet is asked first (an MCP initialize without a token, through its outbound policy) ' +
      'and its answer goes through the same detection. 409 when the server does not ask for OAuth, uses the client credentials grant, or its authorization server ' +
      'offers no way to register the registry (the detail says what to give as `auth`).',
    ok: {
      type: AuthorizationStartDto,
      example: {
        authorizationUrl:
          'https://auth.example.com/authorize?response_type=code&client_id=registry&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=Zk9sY2Fs&resource=https%3A%2F%2Fmcp.example.com%2Fgithub%2Fmcp',
        expiresAt: '2026-12-02T10:10:00.000Z',
      },
    },
    problems: [403, 404, 409, 502],
  })
  authorize(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the server to authorize') id: string): Promise<AuthorizationStartDto> {
    return this.flow.authorize(principal, id);
  }

  @Delete('api/v1/servers/:id/authorization')
  @ApiAuthenticated()
  @ApiEndpoint({
    summary: "Forget a server's OAuth tokens (revoked first where the authorization server offers revocation)",
    description: "The server's authorization.status becomes `required` and the server ERROR until it is authorized again.",
    ok: { type: AuthorizationForgottenDto, example: { revoked: true } },
    problems: [403, 404, 409],
  })
  forget(@CurrentPrincipal() principal: Principal, @IdParam('id', 'the server whose authorization is forgotten') id: string): Promise<AuthorizationForgottenDto> {
    return this.flow.forget(principal, id);
  }

  @Get('oauth/callback')
  @Public()
  @ApiEndpoint({
    summary: "Where the authorization server sends the person's browser back (redirect URI: `{PUBLIC_URL}/oauth/callback`)",
    description:
      'Checks the state (single use, 10 minutes, bound to the server and the key that asked), the issuer (RFC 9207), exchanges the ' +
      'code with the PKCE verifier and the resource indicator, and answers a small page saying that the server is connected, or why not.',
    ok: { description: 'Authorized: the server is being discovered', content: { 'text/html': { example: '<h1>The server "github" is authorized</h1>' } } },
  })
  @ApiProduces('text/html')
  async callback(@Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    const page = await this.flow.callback({
      state: one(query.state),
      code: one(query.code),
      iss: one(query.iss),
      error: one(query.error),
      error_description: one(query.error_description),
    });
    res
      .status(page.ok ? 200 : 400)
      .set({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        // The URL carried a code: no referrer leaves this page, and it runs nothing.
        'referrer-policy': 'no-referrer',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
      })
      .send(callbackPage(page.ok, page.title, page.detail));
  }

  @Get('oauth/client-metadata.json')
  @Public()
  @Header('cache-control', 'public, max-age=3600')
  @ApiEndpoint({
    summary: "The registry's OAuth client ID metadata document: its client_id is this URL (used with authorization servers that support them when PUBLIC_URL is https)",
    ok: {
      type: ClientMetadataDocumentDto,
      example: {
        client_id: 'https://registry.example.com/oauth/client-metadata.json',
        client_name: 'MCP Registry',
        redirect_uris: ['https://registry.example.com/oauth/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'web',
      },
    },
  })
  clientMetadata(): Record<string, unknown> {
    return this.oauth.clientMetadataDocument();
  }
}
