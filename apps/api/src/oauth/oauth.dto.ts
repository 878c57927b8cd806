import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class AuthorizationStartDto {
  @ApiProperty({
    description: "The authorization server's page for the server's owner to open (the authorization code grant with PKCE and the resource indicator)",
    example:
      'https://auth.example.com/authorize?response_type=code&client_id=abc&code_challenge=…&code_challenge_method=S256&redirect_uri=https%3A%2F%2Fregistry.example.com%2Foauth%2Fcallback&state=…&scope=repo%3Aread&resource=https%3A%2F%2Fmcp.example.com%2Fmcp',
  })
  authorizationUrl!: string;

  @ApiProperty({ description: 'Until when the link can be completed (10 minutes)', example: '2026-12-02T10:10:00.000Z' })
  expiresAt!: string;
}

export class AuthorizationForgottenDto {
  @ApiProperty({ description: 'Whether the authorization server accepted the revocation (false when it offers none)' })
  revoked!: boolean;
}

export class ClientMetadataDocumentDto {
  @ApiProperty({ example: 'https://registry.example.com/oauth/client-metadata.json' })
  client_id!: string;

  @ApiProperty({ example: 'MCP Registry' })
  client_name!: string;

  @ApiProperty({ type: [String], example: ['https://registry.example.com/oauth/callback'] })
  redirect_uris!: string[];

  @ApiProperty({ type: [String], example: ['authorization_code', 'refresh_token'] })
  grant_types!: string[];

  @ApiProperty({ type: [String], example: ['code'] })
  response_types!: string[];

  @ApiProperty({ example: 'none' })
  token_endpoint_auth_method!: string;

  @ApiPropertyOptional({ example: 'web' })
  application_type?: string;
}
