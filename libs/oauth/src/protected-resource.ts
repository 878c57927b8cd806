import { FetchLike, OutboundBlockedError } from '@app/mcp';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { BearerChallenge } from './www-authenticate';
import { untrusted } from './oauth-errors';

/** How an MCP server is protected, as detection found it. */
export interface Protection {
  /** The RFC 8707 resource indicator sent on authorization and token requests. */
  resource: string;
  /** The authorization server's issuer identifier, checked against its metadata. */
  issuer: string;
  /** The authorization server's metadata (RFC 8414 or OpenID Connect discovery). */
  metadata: AuthorizationServerMetadata;
  /** The protected resource metadata (RFC 9728), when the server publishes it. */
  resourceMetadata?: OAuthProtectedResourceMetadata;
}

/** Detection failed in a way a person must act on, or the flow reached a refused address. */
export class DetectionError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
    this.name = 'DetectionError';
  }
}

/** `https://a.example/x/` and `https://a.example/x` name the same issuer; scheme, host and default port as parsed. */
export function sameIssuer(a: string, b: string): boolean {
  const norm = (v: string) => {
    try {
      return new URL(v).href.replace(/\/$/, '');
    } catch {
      return v.replace(/\/$/, '');
    }
  };
  return norm(a) === norm(b);
}

/** The server's URL as a resource indicator: no fragment, no query, scheme and host lower-case, no trailing slash. */
export function canonicalResource(url: URL): string {
  const u = new URL(url.href);
  u.hash = '';
  u.search = '';
  return u.href.replace(/\/$/, '');
}

/** RFC 9728 §3.3: the metadata's resource must be the server's URL or a prefix of it on the same origin. */
function resourceCovers(resource: string, serverUrl: URL): boolean {
  try {
    const r = new URL(resource);
    if (r.origin !== serverUrl.origin) return false;
    const rp = r.pathname.replace(/\/$/, '');
    const sp = serverUrl.pathname.replace(/\/$/, '');
    return sp === rp || sp.startsWith(rp + '/') || rp === '';
  } catch {
    return false;
  }
}

export function blockedOrMessage(err: unknown): string {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    if (e instanceof OutboundBlockedError) return `the outbound address policy refused it: ${e.message}`;
  }
  return untrusted((err as Error)?.message ?? err);
}

function isBlocked(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) if (e instanceof OutboundBlockedError) return true;
  return false;
}

function isNetwork(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(ECONN|ETIMEDOUT|EAI_AGAIN|UND_ERR|EHOSTUNREACH|ENETUNREACH)/.test(code)) return true;
  }
  return false;
}

/**
 * Finds how a server that answered 401 is protected, in the specification's order: the protected resource
 * metadata named by the challenge (`resource_metadata`), else `/.well-known/oauth-protected-resource/<path>`,
 * else `/.well-known/oauth-protected-resource` (RFC 9728); then its first authorization server's metadata:
 * RFC 8414 with the path inserted, then OpenID Connect discovery (inserted, then appended), with the `issuer`
 * the document states checked against the one the URLs were built from. Every request goes through `fetch`
 * (the outbound policy's for tenant servers): a document that names an authorization server on a refused
 * address is refused before any request reaches it.
 */
export async function discoverProtection(serverUrl: URL, challenge: BearerChallenge | undefined, fetch: FetchLike): Promise<Protection> {
  let resourceMetadata: OAuthProtectedResourceMetadata | undefined;
  const named = challenge?.resourceMetadata;
  if (named) {
    let url: URL;
    try {
      url = new URL(named);
    } catch {
      throw new DetectionError('the server named a resource metadata URL that is not valid');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new DetectionError('the server named a resource metadata URL that is not http(s)');
  }
  try {
    resourceMetadata = await discoverOAuthProtectedResourceMetadata(serverUrl, named ? { resourceMetadataUrl: named } : {}, fetch);
  } catch (err) {
    if (isBlocked(err)) throw new DetectionError(`its protected resource metadata cannot be read: ${blockedOrMessage(err)}`);
    if (isNetwork(err)) throw new DetectionError(`its protected resource metadata could not be fetched: ${blockedOrMessage(err)}`, true);
    // No metadata: the 2025-03-26 revision's fallback (the server's origin is its authorization server) is tried below.
    resourceMetadata = undefined;
  }
  let resource = canonicalResource(serverUrl);
  let issuer = new URL('/', serverUrl).href.replace(/\/$/, '');
  if (resourceMetadata) {
    if (typeof resourceMetadata.resource === 'string') {
      if (!resourceCovers(resourceMetadata.resource, serverUrl)) {
        throw new DetectionError(
          `its protected resource metadata names the resource ${untrusted(resourceMetadata.resource)}, which is not this server's URL (RFC 9728 §3.3)`,
        );
      }
      resource = resourceMetadata.resource;
    }
    const servers = resourceMetadata.authorization_servers ?? [];
    if (servers.length === 0) throw new DetectionError('its protected resource metadata names no authorization server');
    issuer = servers[0];
  }
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw new DetectionError(`the authorization server it names (${untrusted(issuer)}) is not a valid URL`);
  }
  let metadata: AuthorizationServerMetadata | undefined;
  try {
    metadata = await discoverAuthorizationServerMetadata(issuerUrl, { fetchFn: fetch });
  } catch (err) {
    if (isBlocked(err)) throw new DetectionError(`its authorization server ${untrusted(issuer)} cannot be reached: ${blockedOrMessage(err)}`);
    throw new DetectionError(`the metadata of its authorization server ${untrusted(issuer)} could not be read: ${blockedOrMessage(err)}`, isNetwork(err));
  }
  if (!metadata) {
    if (!resourceMetadata) throw new DetectionError('no OAuth protected resource metadata and no authorization server metadata were found');
    throw new DetectionError(`its authorization server ${untrusted(issuer)} publishes no metadata (RFC 8414 or OpenID Connect discovery)`);
  }
  if (typeof metadata.issuer !== 'string' || !sameIssuer(metadata.issuer, issuer)) {
    throw new DetectionError(
      `the authorization server metadata found for ${untrusted(issuer)} states the issuer ${untrusted(metadata.issuer)}: refused (RFC 8414 §3.3)`,
    );
  }
  return { resource, issuer: metadata.issuer, metadata, ...(resourceMetadata ? { resourceMetadata } : {}) };
}
