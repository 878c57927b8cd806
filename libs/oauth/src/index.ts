export { OAuthModule } from './oauth.module';
export { UpstreamOAuthService, CallbackOutcome, CallbackParams, AUTHORIZATION_REQUEST_TTL_MS } from './upstream-oauth.service';
export { AUTHORIZATION_REQUIRED, AUTHORIZATION_EXPIRED, untrusted } from './oauth-errors';
export { CALLBACK_PATH, CLIENT_METADATA_PATH, clientMetadataDocument } from './client-registration';
export { parseBearerChallenge, BearerChallenge } from './www-authenticate';
export { discoverProtection, Protection, DetectionError, canonicalResource, sameIssuer } from './protected-resource';
