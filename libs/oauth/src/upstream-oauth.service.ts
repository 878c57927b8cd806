import { APP_CONFIG, AppConfig } from '@app/config';
import { CredentialsCipher } from '@app/credentials';
import { AuditEventInput, AuditRepository, OAuthRepository, RowLockTimeoutError, ServerOAuthRecord, ServerRepository, StatusWrite, TokenWrite } from '@app/database';
import { ConflictError, formatMs, Principal, ServerAuthorizationView, ServerKind, ServerRecord } from '@app/domain';
import { CLIENT_INFO, FetchLike, HeldToken, McpFailure, McpFailureCode, OutboundPolicy, RefusalVerdict, UpstreamAuthorizer, UpstreamChallenge } from '@app/mcp';
import { exchangeAuthorization, refreshAuthorization, startAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError, ServerError, TemporarilyUnavailableError, TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationServerMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { boundedFetch, OAuthRequestTimeoutError } from './bounded-fetch';
import { CALLBACK_PATH, clientMetadataDocument, confidentialAuthMethod, RegisteredClient, registerWith, RegistrationError } from './client-registration';
import { AUTHORIZATION_EXPIRED, AUTHORIZATION_REQUIRED, authorizationFailure, authorizationServerUnavailable, globalResponses, untrusted } from './oauth-errors';
import { blockedOrMessage, DetectionError, discoverProtection, sameIssuer } from './protected-resource';
import { clientCredentialsToken, clientInformation, revokeToken } from './token-requests';
import { parseBearerChallenge } from './www-authenticate';

/** How long an authorization link may wait for its person. */
export const AUTHORIZATION_REQUEST_TTL_MS = 10 * 60_000;
/** Refreshed this long before expiry at most (a quarter of the lifetime for short-lived tokens). */
const REFRESH_MARGIN_MAX_MS = 60_000;

/** The tokens held for a server, as sealed. */
interface StoredTokens {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  scope?: string;
}

/** How a callback ended: connected (a discovery queued by the caller), or refused with a reason to show. */
export type CallbackOutcome = { ok: true; server: ServerRecord } | { ok: false; reason: string; server?: ServerRecord };

export interface CallbackParams {
  state?: string;
  code?: string;
  iss?: string;
  error?: string;
  error_description?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function scopesOf(tokens: OAuthTokens, asked: string[]): string[] {
  return tokens.scope ? tokens.scope.split(/\s+/).filter(Boolean) : asked;
}

function isRefusal(err: unknown): boolean {
  // An OAuth error answer other than "try later" is the authorization server's decision; anything else (the
  // network, a 5xx page that is not an OAuth error) may pass.
  return err instanceof OAuthError && !(err instanceof ServerError || err instanceof TemporarilyUnavailableError || err instanceof TooManyRequestsError);
}

/**
 * The registry as an OAuth 2.1 client of the MCP servers it connects to (the MCP authorization specification,
 * 2025-11-25): detection after a 401, one client per authorization server, the authorization code grant with
 * PKCE and resource indicators, the client credentials grant, tokens sealed under the server's id and kept
 * fresh with one refresh per token across every process (a row lock), revocation when they are forgotten.
 * Every request of the flow goes through the server's own fetch: the outbound policy's for a tenant server.
 * No token, secret, code, verifier or state reaches a log line, an error, an audit record or an answer.
 */
@Injectable()
export class UpstreamOAuthService implements UpstreamAuthorizer {
  private readonly logger = new Logger('UpstreamOAuth');
  private policyFetch?: FetchLike;
  private globalFetch?: FetchLike;
  /** Renewals under way in this process, by server (one authorization row, one token, per server). */
  private readonly renewals = new Map<string, Promise<HeldToken | undefined>>();
  private readonly normalized = new WeakMap<FetchLike, FetchLike>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: OAuthRepository,
    private readonly servers: ServerRepository,
    private readonly audit: AuditRepository,
    private readonly cipher: CredentialsCipher,
    private readonly policy: OutboundPolicy,
  ) {}

  get redirectUri(): string {
    return this.config.publicUrl + CALLBACK_PATH;
  }

  clientMetadataDocument(): Record<string, unknown> {
    return clientMetadataDocument(this.config.publicUrl);
  }

  /** The fetch a server's authorization flow uses: the outbound policy's for a tenant server, as its own connections. */
  fetchFor(server: ServerRecord): FetchLike {
    if (server.kind !== ServerKind.CUSTOM) return (this.globalFetch ??= this.bounded(globalThis.fetch));
    return (this.policyFetch ??= this.bounded(globalResponses(this.policy.createFetch() as FetchLike)));
  }

  /** Every request of the flow ends within OAUTH_REQUEST_TIMEOUT_MS and reads at most OAUTH_MAX_RESPONSE_BYTES. */
  private bounded(fetch: FetchLike): FetchLike {
    return boundedFetch(fetch, this.config.oauthRequestTimeoutMs);
  }

  private normalize(fetch: FetchLike): FetchLike {
    let wrapped = this.normalized.get(fetch);
    if (!wrapped) this.normalized.set(fetch, (wrapped = this.bounded(globalResponses(fetch))));
    return wrapped;
  }

  // ---- the connection path ------------------------------------------------------------------------------

  async tokenFor(server: ServerRecord, given: FetchLike): Promise<HeldToken | undefined> {
    const fetch = this.normalize(given);
    const clientCredentials = server.auth?.grant === 'client_credentials';
    // Most servers need no OAuth: their row says so, and no query is made.
    if (server.authorization?.status !== 'authorized' && !clientCredentials) return undefined;
    const row = await this.repo.findState(server.id);
    if (!row) return undefined;
    if (!row.tokensCipher) return clientCredentials ? this.renew(server, fetch, undefined, false) : undefined;
    const tokens = this.openTokens(row, server.id);
    if (!this.nearExpiry(row)) return { accessToken: tokens.access_token, expiresAt: row.expiresAt };
    return this.renew(server, fetch, tokens.access_token, false);
  }

  async refused(server: ServerRecord, challenge: UpstreamChallenge, sent: string | undefined, given: FetchLike): Promise<RefusalVerdict> {
    const fetch = this.normalize(given);
    const bearer = parseBearerChallenge(challenge.header);
    if (challenge.status === 403) {
      if (bearer?.error !== 'insufficient_scope') return { retry: false };
      return this.stepUp(server, bearer.scope ?? [], fetch);
    }
    if (challenge.status !== 401) return { retry: false };
    if (sent) {
      // The token was refused before its time (revoked, or the server restarted its keys): renewed once.
      const fresh = await this.renew(server, fetch, sent, true);
      if (fresh && fresh.accessToken !== sent) return { retry: true };
    }
    return this.detect(server, bearer, fetch);
  }

  /** Finds out how the server is protected and records it: the server then needs a person (or gets a client credentials token). */
  private async detect(server: ServerRecord, bearer: ReturnType<typeof parseBearerChallenge>, fetch: FetchLike): Promise<RefusalVerdict> {
    if (!server.url) return { retry: false };
    let protection;
    try {
      protection = await discoverProtection(new URL(server.url), bearer, fetch);
    } catch (err) {
      if (!(err instanceof DetectionError)) throw err;
      if (err.transient) return { retry: false, failure: new McpFailure(McpFailureCode.DependencyUnavailable, `${AUTHORIZATION_REQUIRED}, but ${err.message}`) };
      // A plain 401 from a server that shows no sign of OAuth keeps its own reason (its static credentials are wrong).
      if (!bearer?.resourceMetadata && /no OAuth protected resource metadata/.test(err.message)) return { retry: false };
      await this.recordAudit(server, 'oauth.detect', 'failed', { reason: err.message });
      return { retry: false, failure: authorizationFailure(`${AUTHORIZATION_REQUIRED}: the server asks for OAuth, but ${err.message}`) };
    }
    const scopes = bearer?.scope ?? protection.resourceMetadata?.scopes_supported ?? server.auth?.scopes ?? [];
    const found = { resource: protection.resource, issuer: protection.issuer, asMetadata: protection.metadata as Record<string, unknown>, scopes };
    await this.recordAudit(server, 'oauth.detect', 'required', { issuer: protection.issuer, scopes });
    if (server.auth?.grant === 'client_credentials') {
      await this.repo.saveDetection(server.id, found, { status: 'required', issuer: protection.issuer, scopes });
      try {
        const held = await this.renew(server, fetch, undefined, true);
        if (held) return { retry: true };
      } catch (err) {
        if (err instanceof McpFailure) return { retry: false, failure: err };
        throw err;
      }
      return { retry: false, failure: authorizationFailure(`${AUTHORIZATION_REQUIRED}: the client credentials grant gave no token`) };
    }
    // An authorization whose refresh was refused stays `expired` (with its reason) until someone authorizes again.
    const expired = server.authorization?.status === 'expired' && server.authorization.issuer === protection.issuer;
    const reason = expired
      ? `${AUTHORIZATION_EXPIRED}: the authorization server refused to refresh the token; authorize again with POST /api/v1/servers/${server.id}/authorize`
      : `${AUTHORIZATION_REQUIRED}: the server is protected by OAuth (authorization server ${untrusted(protection.issuer)}); ` +
        `its owner authorizes it with POST /api/v1/servers/${server.id}/authorize and opens the authorizationUrl`;
    await this.repo.saveDetection(server.id, found, { status: expired ? 'expired' : 'required', issuer: protection.issuer, scopes });
    return { retry: false, failure: authorizationFailure(reason) };
  }

  /**
   * Authorize before any discovery found the authorization server: the server is asked once, without a token (an
   * MCP initialize through the server's own fetch, the outbound policy's for a tenant server), and its answer goes
   * through the same detection as a discovery's 401. Throws a ConflictError saying why when it does not ask for OAuth.
   */
  private async probe(server: ServerRecord): Promise<ServerOAuthRecord> {
    if (!server.url || (server.transport !== 'streamable-http' && server.transport !== 'sse')) {
      throw new ConflictError('only a remote server (streamable-http or sse) can be authorized with OAuth');
    }
    const fetch = this.fetchFor(server);
    let challenge: UpstreamChallenge;
    try {
      const res = await fetch(server.url, {
        method: server.transport === 'sse' ? 'GET' : 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        ...(server.transport === 'sse'
          ? {}
          : { body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO } }) }),
        redirect: 'manual',
      });
      await res.body?.cancel().catch(() => undefined);
      challenge = { status: res.status, header: res.headers.get('www-authenticate') };
    } catch (err) {
      throw new ConflictError(`the server could not be asked how it is protected: ${untrusted(blockedOrMessage(err))}`);
    }
    if (challenge.status !== 401) {
      throw new ConflictError(`the server does not ask for authorization: it answered ${challenge.status} without a token, not 401 with a Bearer challenge`);
    }
    const verdict = await this.detect(server, parseBearerChallenge(challenge.header), fetch);
    const row = await this.repo.findState(server.id);
    if (row) return row;
    const why = !verdict.retry && verdict.failure ? verdict.failure.message : 'it answered 401 without any sign of OAuth (no protected resource or authorization server metadata)';
    throw new ConflictError(`the server's authorization server could not be found: ${why}`);
  }

  /** 403 insufficient_scope: the union of the scopes held and those asked for is asked for, once. */
  private async stepUp(server: ServerRecord, asked: string[], fetch: FetchLike): Promise<RefusalVerdict> {
    const row = await this.repo.findState(server.id);
    if (!row) return { retry: false };
    const union = [...new Set([...row.scopes, ...asked])];
    const missing = union.filter((s) => !row.scopes.includes(s));
    if (missing.length === 0) {
      return { retry: false, failure: new McpFailure(McpFailureCode.Forbidden, `the server refused the token for lack of scope even with the scopes granted (${row.scopes.join(' ') || 'none'})`, 403) };
    }
    await this.repo.saveDetection(server.id, { resource: row.resource, issuer: row.issuer, asMetadata: row.asMetadata, scopes: union }, this.viewOf(row, 'authorized', union));
    await this.recordAudit(server, 'oauth.step-up', 'required', { scopes: union });
    if (server.auth?.grant === 'client_credentials') {
      const held = await this.renew(server, fetch, undefined, true);
      return held ? { retry: true } : { retry: false };
    }
    return {
      retry: false,
      failure: new McpFailure(
        McpFailureCode.Forbidden,
        `the server needs the scopes ${missing.map((s) => untrusted(s, 60)).join(' ')} for this: authorize again (POST /api/v1/servers/${server.id}/authorize) to grant ${union.map((s) => untrusted(s, 60)).join(' ')}`,
        403,
      ),
    };
  }

  /**
   * A fresh token, with the server's authorization row locked: whoever holds the lock refreshes (or fetches a
   * client credentials token), everyone else waits and then finds the new token on the row. `stale` is the token
   * the caller has; `force` renews even a token that has not reached its margin (the server refused it).
   */
  private async renew(server: ServerRecord, fetch: FetchLike, stale: string | undefined, force: boolean): Promise<HeldToken | undefined> {
    // One renewal per token in this process (the embedded database shares one session among its connections, so
    // its row lock does not keep two apart): a caller that finds one under way takes its result, unless it needs
    // a token other than the one it was refused and that renewal kept it.
    for (let running = this.renewals.get(server.id); running; running = this.renewals.get(server.id)) {
      const held = await running;
      if (!force || !held || held.accessToken !== stale) return held;
    }
    const mine = this.renewLocked(server, fetch, stale, force).finally(() => {
      if (this.renewals.get(server.id) === mine) this.renewals.delete(server.id);
    });
    this.renewals.set(server.id, mine);
    return mine;
  }

  /** The renewal itself, under the row lock that keeps processes apart on PostgreSQL. */
  private async renewLocked(server: ServerRecord, fetch: FetchLike, stale: string | undefined, force: boolean): Promise<HeldToken | undefined> {
    const clientCredentials = server.auth?.grant === 'client_credentials';
    let audited: { action: string; outcome: string; detail: Record<string, unknown> } | undefined;
    // A waiter gives up after twice the request timeout: the holder makes at most two requests (registration, token).
    const lockTimeoutMs = 2 * this.config.oauthRequestTimeoutMs;
    // The client is found (or registered) before the lock: the work under it makes no query on another connection,
    // which the embedded database (one session, one open transaction at a time) would hold until the lock's end.
    const seen = await this.repo.findState(server.id);
    if (!seen) return undefined;
    let found: RegisteredClient | McpFailure;
    try {
      found = await this.clientFor(server, seen, fetch);
    } catch (err) {
      if (err instanceof RegistrationError) found = authorizationFailure(`${AUTHORIZATION_REQUIRED}: ${err.message}`);
      else if (err instanceof OAuthRequestTimeoutError) found = authorizationServerUnavailable(seen.issuer, 'the client registration', err);
      else throw err;
    }
    const result = await this.repo.withLockedState<HeldToken | McpFailure | undefined>(server.id, lockTimeoutMs, async (row) => {
      if (!row) return { result: undefined };
      const current = row.tokensCipher ? this.openTokens(row, server.id) : undefined;
      if (current && (current.access_token !== stale || !force) && !this.nearExpiry(row)) {
        // Renewed by another caller (or process) while this one waited for the lock.
        return { result: { accessToken: current.access_token, expiresAt: row.expiresAt } };
      }
      const metadata = row.asMetadata as unknown as AuthorizationServerMetadata;
      if (found instanceof McpFailure) return { result: found };
      if (row.issuer !== seen.issuer) {
        return { result: new McpFailure(McpFailureCode.DependencyUnavailable, "the server's authorization server changed while its token was renewed; the next attempt tries again") };
      }
      const client = found;
      let tokens: OAuthTokens;
      const grant = current?.refresh_token ? 'refresh_token' : clientCredentials ? 'client_credentials' : undefined;
      if (!grant) {
        // Nothing to renew with: the person must authorize again.
        const reason = `${AUTHORIZATION_REQUIRED}: the server refused its access token and no refresh token is held; authorize again with POST /api/v1/servers/${server.id}/authorize`;
        return { result: authorizationFailure(reason), tokens: null, view: this.viewOf(row, 'required'), status: { status: 'ERROR', reason } };
      }
      try {
        tokens =
          grant === 'refresh_token'
            ? await refreshAuthorization(row.issuer, { metadata, clientInformation: clientInformation(client), refreshToken: current!.refresh_token!, resource: row.resource, fetchFn: fetch })
            : await clientCredentialsToken(metadata, client, { scopes: row.scopes, resource: row.resource, fetch });
      } catch (err) {
        if (!isRefusal(err)) return { result: authorizationServerUnavailable(row.issuer, grant === 'refresh_token' ? 'a token refresh' : 'a client credentials token', err) };
        const why = untrusted((err as OAuthError).errorCode) + ((err as Error).message ? `: ${untrusted((err as Error).message)}` : '');
        audited = { action: grant === 'refresh_token' ? 'oauth.refresh' : 'oauth.client-credentials', outcome: 'refused', detail: { issuer: row.issuer, error: untrusted((err as OAuthError).errorCode, 60) } };
        const reason =
          grant === 'refresh_token'
            ? `${AUTHORIZATION_EXPIRED}: the authorization server refused to refresh the token (${why}); authorize again with POST /api/v1/servers/${server.id}/authorize`
            : `${AUTHORIZATION_REQUIRED}: the authorization server refused the client credentials (${why}); check auth.clientId and auth.clientSecret`;
        return {
          result: authorizationFailure(reason),
          tokens: null,
          view: this.viewOf(row, grant === 'refresh_token' ? 'expired' : 'required'),
          status: { status: 'ERROR', reason },
        };
      }
      const write = this.tokenWrite(server.id, tokens, row.scopes, client, current?.refresh_token);
      audited = { action: grant === 'refresh_token' ? 'oauth.refresh' : 'oauth.client-credentials', outcome: 'ok', detail: { issuer: row.issuer } };
      return {
        result: { accessToken: tokens.access_token, expiresAt: write.expiresAt },
        tokens: write,
        view: { status: 'authorized', issuer: row.issuer, scopes: write.scopes, ...(write.expiresAt ? { expiresAt: write.expiresAt.toISOString() } : {}) },
      };
    }).catch((err: unknown) => {
      if (!(err instanceof RowLockTimeoutError)) throw err;
      return new McpFailure(
        McpFailureCode.DependencyUnavailable,
        `another renewal of this server's OAuth token did not end within ${formatMs(lockTimeoutMs)} (its authorization server is slow to answer); the next attempt tries again`,
      );
    });
    if (audited) await this.recordAudit(server, audited.action, audited.outcome, audited.detail);
    if (result instanceof McpFailure) throw result;
    return result;
  }

  // ---- the person's authorization -----------------------------------------------------------------------

  /** An authorization URL for the server's owner to open, with its state kept hashed and its PKCE verifier sealed. */
  async startAuthorization(server: ServerRecord, principal: Principal): Promise<{ authorizationUrl: string; expiresAt: string }> {
    if (server.auth?.grant === 'client_credentials') {
      throw new ConflictError('this server uses the client credentials grant: its tokens are fetched without a person');
    }
    const row = (await this.repo.findState(server.id)) ?? (await this.probe(server));
    const metadata = row.asMetadata as unknown as AuthorizationServerMetadata;
    if (!metadata.code_challenge_methods_supported?.includes('S256')) {
      throw new ConflictError(`the authorization server ${untrusted(row.issuer)} does not advertise PKCE with S256, which OAuth 2.1 and the MCP authorization specification require`);
    }
    const fetch = this.fetchFor(server);
    let client: RegisteredClient;
    try {
      client = await this.clientFor(server, row, fetch);
    } catch (err) {
      if (err instanceof RegistrationError) throw new ConflictError(err.message);
      throw err;
    }
    const scopes = [...row.scopes];
    // Refresh tokens come with offline_access on authorization servers that define it (OpenID Connect).
    if (metadata.scopes_supported?.includes('offline_access') && !scopes.includes('offline_access')) scopes.push('offline_access');
    const state = randomBytes(32).toString('base64url');
    const stateHash = sha256(state);
    const { authorizationUrl, codeVerifier } = await startAuthorization(row.issuer, {
      metadata,
      clientInformation: clientInformation(client),
      redirectUrl: this.redirectUri,
      scope: scopes.length ? scopes.join(' ') : undefined,
      state,
      resource: row.resource,
    });
    const expiresAt = new Date(Date.now() + AUTHORIZATION_REQUEST_TTL_MS);
    await this.repo.createRequest({
      stateHash,
      serverId: server.id,
      tenantId: server.tenantId,
      actorId: principal.keyId,
      verifierCipher: this.cipher.seal(codeVerifier, `oauth-request:${stateHash}`),
      clientId: client.clientId,
      redirectUri: this.redirectUri,
      scopes,
      expiresAt,
    });
    await this.recordAudit(server, 'oauth.authorize', 'started', { issuer: row.issuer, scopes, client: client.method }, principal);
    return { authorizationUrl: authorizationUrl.href, expiresAt: expiresAt.toISOString() };
  }

  /**
   * The authorization server sent the person back: the state is taken once (unknown, used or expired: refused),
   * its server must still belong to the tenant that asked with a key that still stands, the issuer must be the
   * one asked (RFC 9207), and the code is exchanged with the verifier and the resource. Nothing is stored unless
   * all of that holds.
   */
  async completeAuthorization(params: CallbackParams): Promise<CallbackOutcome> {
    if (!params.state || params.state.length > 512) return { ok: false, reason: 'the answer carries no state: it does not come from an authorization the registry started' };
    const request = await this.repo.takeRequest(sha256(params.state));
    if (!request) return { ok: false, reason: 'this authorization is unknown or was already completed: ask for a new one (POST /api/v1/servers/{id}/authorize)' };
    const server = await this.servers.findById(request.serverId, { type: 'admin' });
    const refuse = async (reason: string, detail: Record<string, unknown> = {}): Promise<CallbackOutcome> => {
      if (server) await this.recordAudit(server, 'oauth.callback', 'refused', { reason, ...detail }, this.actorOf(request));
      return { ok: false, reason, ...(server ? { server } : {}) };
    };
    if (request.expiresAt.getTime() < Date.now()) return refuse('this authorization expired before it was completed: ask for a new one (POST /api/v1/servers/{id}/authorize)');
    if (!server || server.tenantId !== request.tenantId) return refuse('the server this authorization was for is gone');
    if (request.tenantId && !(await this.repo.keyStands(request.actorId, request.tenantId))) return refuse('the API key that asked for this authorization was revoked');
    const row = await this.repo.findState(server.id);
    if (!row) return refuse("the server's authorization was forgotten while this one was under way");
    const metadata = row.asMetadata as unknown as AuthorizationServerMetadata & { authorization_response_iss_parameter_supported?: boolean };
    if (params.iss !== undefined && !sameIssuer(params.iss, row.issuer)) {
      return refuse(`the answer comes from the issuer ${untrusted(params.iss)}, not from ${untrusted(row.issuer)} (RFC 9207): refused`);
    }
    if (params.iss === undefined && metadata.authorization_response_iss_parameter_supported === true) {
      return refuse(`the authorization server ${untrusted(row.issuer)} says it names itself in its answers (RFC 9207), and this answer does not: refused`);
    }
    if (params.error) {
      const detail = params.error_description ? `: ${untrusted(params.error_description)}` : '';
      return refuse(`the authorization server answered ${untrusted(params.error, 60)}${detail}`, { error: untrusted(params.error, 60) });
    }
    if (!params.code) return refuse('the answer carries no authorization code');
    const fetch = this.fetchFor(server);
    let client: RegisteredClient;
    try {
      client = await this.clientFor(server, row, fetch);
    } catch (err) {
      if (err instanceof RegistrationError) return refuse(err.message);
      throw err;
    }
    if (client.clientId !== request.clientId) return refuse("the server's OAuth client changed while this authorization was under way: ask for a new one");
    const verifier = this.cipher.open<string>(request.verifierCipher, `oauth-request:${request.stateHash}`);
    let tokens: OAuthTokens;
    try {
      tokens = await exchangeAuthorization(row.issuer, {
        metadata,
        clientInformation: clientInformation(client),
        authorizationCode: params.code,
        codeVerifier: verifier,
        redirectUri: request.redirectUri,
        resource: row.resource,
        fetchFn: fetch,
      });
    } catch (err) {
      const why = err instanceof OAuthError ? `${untrusted(err.errorCode, 60)}${err.message ? `: ${untrusted(err.message)}` : ''}` : untrusted((err as Error).message);
      return refuse(`the authorization server refused the code (${why})`);
    }
    const write = this.tokenWrite(server.id, tokens, request.scopes, client);
    await this.repo.saveTokens(server.id, write, {
      status: 'authorized',
      issuer: row.issuer,
      scopes: write.scopes,
      ...(write.expiresAt ? { expiresAt: write.expiresAt.toISOString() } : {}),
    });
    await this.recordAudit(server, 'oauth.callback', 'authorized', { issuer: row.issuer, scopes: write.scopes, refreshable: !!tokens.refresh_token }, this.actorOf(request));
    return { ok: true, server };
  }

  /** Forgets the server's tokens, revoking them first where the authorization server offers revocation. */
  async forget(server: ServerRecord, principal: Principal): Promise<{ revoked: boolean }> {
    const row = await this.repo.findState(server.id);
    let revoked = false;
    if (row?.tokensCipher) {
      const tokens = this.openTokens(row, server.id);
      const metadata = row.asMetadata as unknown as AuthorizationServerMetadata;
      const fetch = this.fetchFor(server);
      const client = await this.clientFor(server, row, fetch, false).catch(() => undefined);
      if (client) {
        // The refresh token first: revoking it ends the grant, and with it (on most servers) its access tokens.
        if (tokens.refresh_token) revoked = await revokeToken(metadata, client, tokens.refresh_token, 'refresh_token', fetch);
        revoked = (await revokeToken(metadata, client, tokens.access_token, 'access_token', fetch)) || revoked;
      }
    }
    const reason = `${AUTHORIZATION_REQUIRED}: its tokens were forgotten; authorize again with POST /api/v1/servers/${server.id}/authorize`;
    if (row) await this.repo.forgetTokens(server.id, this.viewOf(row, 'required'), { status: 'ERROR', reason });
    else await this.repo.forgetAll(server.id);
    await this.recordAudit(server, 'oauth.forget', 'ok', { revoked }, principal);
    return { revoked };
  }

  // ---- pieces ---------------------------------------------------------------------------------------------

  /**
   * The client to use with the server's authorization server: the one given on the server (auth.clientId),
   * else the one the registry already has for that issuer, else a new one (client ID metadata document, else
   * dynamic registration; `register: false` only looks).
   */
  private async clientFor(server: ServerRecord, row: ServerOAuthRecord, fetch: FetchLike, register = true): Promise<RegisteredClient> {
    const metadata = row.asMetadata as unknown as AuthorizationServerMetadata;
    const config = await this.repo.findConfig(server.id);
    if (config?.config?.clientId) {
      const secret = config.clientSecretCipher ? this.cipher.open<string>(config.clientSecretCipher, server.id) : undefined;
      return {
        method: 'pre-registered',
        clientId: config.config.clientId,
        ...(secret ? { clientSecret: secret } : {}),
        tokenEndpointAuthMethod: secret ? confidentialAuthMethod(metadata) : 'none',
      };
    }
    if (server.auth?.grant === 'client_credentials') throw new RegistrationError('the client credentials grant needs auth.clientId and auth.clientSecret on the server');
    const known = await this.repo.findClient(row.issuer, this.redirectUri);
    if (known) {
      return {
        method: known.method,
        clientId: known.clientId,
        ...(known.clientSecretCipher ? { clientSecret: this.cipher.open<string>(known.clientSecretCipher, `oauth-client:${row.issuer}`) } : {}),
        tokenEndpointAuthMethod: known.tokenEndpointAuthMethod,
      };
    }
    if (!register) throw new RegistrationError('no client is registered with this authorization server');
    // No scope in the registration: the client is shared by every server on the issuer, each asking for its own.
    const made = await registerWith(metadata, this.config.publicUrl, fetch);
    const saved = await this.repo.saveClient({
      issuer: row.issuer,
      redirectUri: this.redirectUri,
      method: made.method === 'metadata-document' ? 'metadata-document' : 'dynamic',
      clientId: made.clientId,
      clientSecretCipher: made.clientSecret ? this.cipher.seal(made.clientSecret, `oauth-client:${row.issuer}`) : null,
      tokenEndpointAuthMethod: made.tokenEndpointAuthMethod,
    });
    this.logger.log({ issuer: row.issuer, method: saved.method }, 'registered a client with an authorization server');
    await this.recordAudit(server, 'oauth.register', saved.method, { issuer: row.issuer });
    return {
      method: saved.method,
      clientId: saved.clientId,
      ...(saved.clientSecretCipher ? { clientSecret: this.cipher.open<string>(saved.clientSecretCipher, `oauth-client:${row.issuer}`) } : {}),
      tokenEndpointAuthMethod: saved.tokenEndpointAuthMethod,
    };
  }

  private tokenWrite(serverId: string, tokens: OAuthTokens, asked: string[], client: RegisteredClient, previousRefresh?: string): TokenWrite {
    const stored: StoredTokens = {
      access_token: tokens.access_token,
      ...(tokens.refresh_token ?? previousRefresh ? { refresh_token: tokens.refresh_token ?? previousRefresh } : {}),
      ...(tokens.token_type ? { token_type: tokens.token_type } : {}),
      ...(tokens.scope ? { scope: tokens.scope } : {}),
    };
    const expiresIn = typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? tokens.expires_in : undefined;
    return {
      tokensCipher: this.cipher.seal(stored, serverId),
      expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      scopes: scopesOf(tokens, asked),
      clientId: client.clientId,
    };
  }

  private openTokens(row: ServerOAuthRecord, serverId: string): StoredTokens {
    try {
      return this.cipher.open<StoredTokens>(row.tokensCipher!, serverId);
    } catch (err) {
      throw new McpFailure(McpFailureCode.CredentialsUnavailable, `the stored OAuth tokens cannot be used: ${(err as Error).message}`);
    }
  }

  /** Whether the token is within its refresh margin: a quarter of its lifetime, at most a minute. */
  private nearExpiry(row: ServerOAuthRecord): boolean {
    if (!row.expiresAt) return false;
    const expires = row.expiresAt.getTime();
    const lifetime = row.obtainedAt ? expires - row.obtainedAt.getTime() : REFRESH_MARGIN_MAX_MS * 4;
    const margin = Math.min(REFRESH_MARGIN_MAX_MS, Math.max(0, lifetime / 4));
    return Date.now() >= expires - margin;
  }

  private viewOf(row: ServerOAuthRecord, status: ServerAuthorizationView['status'], scopes = row.scopes): ServerAuthorizationView {
    return { status, issuer: row.issuer, scopes, ...(status === 'authorized' && row.expiresAt ? { expiresAt: row.expiresAt.toISOString() } : {}) };
  }

  private actorOf(request: { tenantId: string | null; actorId: string }): Principal {
    return request.tenantId ? { type: 'tenant', tenantId: request.tenantId, keyId: request.actorId } : { type: 'admin', keyId: 'admin' };
  }

  private async recordAudit(server: ServerRecord, action: string, outcome: string, detail: Record<string, unknown>, actor?: Principal): Promise<void> {
    const event: AuditEventInput = {
      actorType: actor ? actor.type : 'system',
      actorId: actor ? actor.keyId : 'oauth',
      tenantId: server.tenantId,
      action,
      resourceType: 'server',
      resourceId: server.id,
      outcome,
      detail: { name: server.name, ...detail },
    };
    await this.audit.record(event).catch((err: Error) => this.logger.warn({ serverId: server.id, action, err: err.message }, 'an OAuth audit record could not be written'));
  }
}

export type { StatusWrite };
