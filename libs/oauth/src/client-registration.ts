import { FetchLike } from '@app/mcp';
import { registerClient } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthRequestTimeoutError } from './bounded-fetch';
import { untrusted } from './oauth-errors';

/** The registry's client, as one authorization server knows it. */
export interface RegisteredClient {
  method: 'pre-registered' | 'metadata-document' | 'dynamic';
  clientId: string;
  clientSecret?: string;
  tokenEndpointAuthMethod: string;
}

/** What the operator must give (a client) because the authorization server offers no way to register one. */
export class RegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrationError';
  }
}

export const CLIENT_NAME = 'MCP Registry';
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';
export const CALLBACK_PATH = '/oauth/callback';

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}

/**
 * The registry's client metadata: what it registers dynamically and what its client ID metadata document says.
 * `web` for a deployment with a public address; `native` when the redirect goes to loopback (RFC 8252 §7.3),
 * which authorization servers refuse for web clients.
 */
export function clientMetadata(publicUrl: string, authMethod: string, scope?: string): OAuthClientMetadata {
  const redirect = publicUrl + CALLBACK_PATH;
  return {
    client_name: CLIENT_NAME,
    client_uri: publicUrl,
    redirect_uris: [redirect],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
    application_type: isLoopback(new URL(publicUrl).hostname) ? 'native' : 'web',
    software_id: 'mcp-registry',
    ...(scope ? { scope } : {}),
  } as OAuthClientMetadata;
}

/** The client ID metadata document the registry serves at {PUBLIC_URL}/oauth/client-metadata.json. */
export function clientMetadataDocument(publicUrl: string): Record<string, unknown> {
  return { client_id: publicUrl + CLIENT_METADATA_PATH, ...clientMetadata(publicUrl, 'none') };
}

/** The token endpoint authentication a confidential server-side client uses, among those the server supports. */
export function confidentialAuthMethod(metadata: AuthorizationServerMetadata): string {
  // RFC 8414 §2: when the server lists none, client_secret_basic is the default.
  const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  if (supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'none';
}

/**
 * Registers the registry with an authorization server that has no client of it yet: a client ID metadata
 * document when the server supports them and PUBLIC_URL is https (nothing to register: the URL is the client
 * ID), else dynamic client registration (RFC 7591), else a reason that says what the operator must give.
 */
export async function registerWith(
  metadata: AuthorizationServerMetadata,
  publicUrl: string,
  fetch: FetchLike,
  scope?: string,
): Promise<RegisteredClient> {
  const https = publicUrl.startsWith('https://');
  if ((metadata as { client_id_metadata_document_supported?: unknown }).client_id_metadata_document_supported === true && https) {
    return { method: 'metadata-document', clientId: publicUrl + CLIENT_METADATA_PATH, tokenEndpointAuthMethod: 'none' };
  }
  if (!metadata.registration_endpoint) {
    const cimd = (metadata as { client_id_metadata_document_supported?: unknown }).client_id_metadata_document_supported === true;
    throw new RegistrationError(
      `the authorization server ${untrusted(metadata.issuer)} offers no dynamic client registration` +
        (cimd ? ' and accepts client ID metadata documents only from an https PUBLIC_URL' : ' and no client ID metadata documents') +
        `: register a client there with the redirect URI ${publicUrl}${CALLBACK_PATH} and give it on the server as auth: {clientId, clientSecret}`,
    );
  }
  const method = confidentialAuthMethod(metadata);
  let info;
  try {
    info = await registerClient(metadata.issuer, { metadata, clientMetadata: clientMetadata(publicUrl, method, scope), fetchFn: fetch });
  } catch (err) {
    // No answer in time is not a refusal: the caller reports it as transient.
    if (err instanceof OAuthRequestTimeoutError) throw err;
    throw new RegistrationError(
      `the authorization server ${untrusted(metadata.issuer)} refused the registry's dynamic client registration (${untrusted((err as Error).message)}): ` +
        `register a client there with the redirect URI ${publicUrl}${CALLBACK_PATH} and give it on the server as auth: {clientId, clientSecret}`,
    );
  }
  return {
    method: 'dynamic',
    clientId: info.client_id,
    ...(info.client_secret ? { clientSecret: info.client_secret } : {}),
    tokenEndpointAuthMethod: info.token_endpoint_auth_method ?? (info.client_secret ? method : 'none'),
  };
}
