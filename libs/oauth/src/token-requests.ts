import { FetchLike } from '@app/mcp';
import { parseErrorResponse, selectClientAuthMethod } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthTokensSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { RegisteredClient } from './client-registration';

/** The SDK's view of a client: its id, secret and how it authenticates at the token endpoint. */
export function clientInformation(client: RegisteredClient): OAuthClientInformationFull {
  return {
    client_id: client.clientId,
    ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    redirect_uris: [],
  } as OAuthClientInformationFull;
}

function authenticate(client: RegisteredClient, metadata: AuthorizationServerMetadata, headers: Headers, body: URLSearchParams): void {
  const method = selectClientAuthMethod(clientInformation(client), metadata.token_endpoint_auth_methods_supported ?? []);
  if (method === 'client_secret_basic' && client.clientSecret) {
    // RFC 6749 §2.3.1: both parts form-encoded before the Basic encoding.
    const id = encodeURIComponent(client.clientId);
    const secret = encodeURIComponent(client.clientSecret);
    headers.set('authorization', `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`);
    return;
  }
  body.set('client_id', client.clientId);
  if (method === 'client_secret_post' && client.clientSecret) body.set('client_secret', client.clientSecret);
}

/** The client credentials grant (RFC 6749 §4.4) with the RFC 8707 resource: a token without a person. */
export async function clientCredentialsToken(
  metadata: AuthorizationServerMetadata,
  client: RegisteredClient,
  options: { scopes: string[]; resource: string; fetch: FetchLike },
): Promise<OAuthTokens> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: options.resource });
  if (options.scopes.length) body.set('scope', options.scopes.join(' '));
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
  authenticate(client, metadata, headers, body);
  const res = await options.fetch(metadata.token_endpoint, { method: 'POST', headers, body });
  if (!res.ok) throw await parseErrorResponse(res);
  return OAuthTokensSchema.parse(await res.json());
}

/**
 * Revokes a token (RFC 7009) where the authorization server offers revocation; whether it did is returned,
 * never thrown: forgetting a server's tokens does not wait on the authorization server agreeing.
 */
export async function revokeToken(
  metadata: AuthorizationServerMetadata,
  client: RegisteredClient,
  token: string,
  hint: 'access_token' | 'refresh_token',
  fetch: FetchLike,
): Promise<boolean> {
  // RFC 7009 metadata is not in every metadata type of the SDK (OpenID Connect discovery documents carry it too).
  const endpoint = (metadata as { revocation_endpoint?: unknown }).revocation_endpoint;
  if (typeof endpoint !== 'string') return false;
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
  authenticate(client, metadata, headers, body);
  try {
    const res = await fetch(endpoint, { method: 'POST', headers, body });
    await res.body?.cancel().catch(() => undefined);
    return res.ok;
  } catch {
    return false;
  }
}
