import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { clientMetadata, clientMetadataDocument, confidentialAuthMethod, registerWith, RegistrationError } from './client-registration';

const metadata = (extra: Record<string, unknown> = {}): AuthorizationServerMetadata =>
  ({
    issuer: 'https://auth.example.com',
    authorization_endpoint: 'https://auth.example.com/authorize',
    token_endpoint: 'https://auth.example.com/token',
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    ...extra,
  }) as AuthorizationServerMetadata;

/** A fetch that fails the test when called: the cases below must decide without a request. */
const noRequest = async (): Promise<Response> => {
  throw new Error('no request was expected');
};

describe('client registration', () => {
  it('uses the client ID metadata document when the server supports it and PUBLIC_URL is https', async () => {
    const client = await registerWith(metadata({ client_id_metadata_document_supported: true, registration_endpoint: 'https://auth.example.com/reg' }), 'https://registry.example.com', noRequest);
    expect(client).toEqual({ method: 'metadata-document', clientId: 'https://registry.example.com/oauth/client-metadata.json', tokenEndpointAuthMethod: 'none' });
  });

  it('says what the operator must give when neither registration nor an https metadata document is possible', async () => {
    await expect(registerWith(metadata({ client_id_metadata_document_supported: true }), 'http://127.0.0.1:3000', noRequest)).rejects.toThrow(
      new RegistrationError(
        'the authorization server https://auth.example.com offers no dynamic client registration and accepts client ID metadata documents only from an https PUBLIC_URL: register a client there with the redirect URI http://127.0.0.1:3000/oauth/callback and give it on the server as auth: {clientId, clientSecret}',
      ),
    );
    await expect(registerWith(metadata(), 'https://registry.example.com', noRequest)).rejects.toThrow(/offers no dynamic client registration and no client ID metadata documents/);
  });

  it('registers dynamically with application_type, both grants and a confidential method', async () => {
    let sent: Record<string, unknown> | undefined;
    const fetch = async (_url: string | URL, init?: RequestInit) => {
      sent = JSON.parse(String(init?.body)) as Record<string, unknown>;
      return new Response(JSON.stringify({ client_id: 'abc', client_secret: 'shh', token_endpoint_auth_method: 'client_secret_basic', redirect_uris: sent.redirect_uris }), {
        status: 201,
        headers: { 'content-type': 'application/json' },
      });
    };
    const client = await registerWith(metadata({ registration_endpoint: 'https://auth.example.com/reg' }), 'https://registry.example.com', fetch);
    expect(client).toEqual({ method: 'dynamic', clientId: 'abc', clientSecret: 'shh', tokenEndpointAuthMethod: 'client_secret_basic' });
    expect(sent).toMatchObject({
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['https://registry.example.com/oauth/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
  });

  it('is a native client for a loopback PUBLIC_URL, and picks the token endpoint method the server offers', () => {
    expect(clientMetadata('http://127.0.0.1:3000', 'none')).toMatchObject({ application_type: 'native' });
    expect(clientMetadataDocument('https://r.example.com')).toMatchObject({ client_id: 'https://r.example.com/oauth/client-metadata.json', token_endpoint_auth_method: 'none' });
    expect(confidentialAuthMethod(metadata())).toBe('client_secret_basic');
    expect(confidentialAuthMethod(metadata({ token_endpoint_auth_methods_supported: ['client_secret_post', 'none'] }))).toBe('client_secret_post');
    expect(confidentialAuthMethod(metadata({ token_endpoint_auth_methods_supported: ['none'] }))).toBe('none');
  });
});
