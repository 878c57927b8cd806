import type { PipedreamConfig } from '@app/config';
import { UpstreamError } from '@app/domain';
import { createHash } from 'node:crypto';

/** The part of the configuration the token endpoint needs. */
export type PipedreamCredentialsConfig = Pick<PipedreamConfig, 'apiUrl' | 'clientId' | 'clientSecret'>;

export interface PipedreamTokenProviderOptions {
  fetch?: typeof fetch;
  now?: () => number;
  /** How long before expiry a token is replaced (default 60 s, or a tenth of its lifetime if that is shorter). */
  refreshMarginMs?: number;
  timeoutMs?: number;
}

interface CachedToken {
  value: string;
  /** When to stop using it: expiry less the refresh margin. */
  refreshAt: number;
}

/**
 * At most one token is dropped for a refusal in this time: when the fresh token is refused too, the refusal
 * says something about the request (an account or app that is gone), and fetching again would only load
 * Pipedream.
 */
export const REFUSAL_REFETCH_INTERVAL_MS = 30_000;

/**
 * Pipedream Connect's OAuth client-credentials token: `POST {apiUrl}/v1/oauth/token`
 * with `{grant_type: "client_credentials", client_id, client_secret}`. The token is
 * cached until shortly before it expires; concurrent callers share one request.
 * Neither the token nor the client secret is ever logged or put in an error.
 */
export class PipedreamTokenProvider {
  private cached?: CachedToken;
  /** When a refusal last dropped a token (see REFUSAL_REFETCH_INTERVAL_MS). */
  private lastRefusalAt?: number;
  private pending?: Promise<string>;
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  private fetched = 0;

  constructor(
    private readonly config: PipedreamCredentialsConfig,
    private readonly options: PipedreamTokenProviderOptions = {},
  ) {
    this.fetchImpl = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  /** How many tokens this provider has fetched (for tests and metrics). */
  get fetchCount(): number {
    return this.fetched;
  }

  async getToken(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return this.cached.value;
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /**
   * Drops the cached token (for instance after Pipedream answered 401 with it: revoked before its expiry).
   * Given the token that was refused, drops it only if it is still the cached one and not a fresh one (see
   * MIN_REFUSED_TOKEN_AGE_MS). Returns whether the next request gets a new token.
   */
  invalidate(refused?: string): boolean {
    if (refused === undefined) {
      this.cached = undefined;
      return true;
    }
    // Already replaced: the next request uses the newer token.
    if (this.cached?.value !== refused) return true;
    if (this.lastRefusalAt !== undefined && this.now() - this.lastRefusalAt < REFUSAL_REFETCH_INTERVAL_MS) return false;
    this.lastRefusalAt = this.now();
    this.cached = undefined;
    return true;
  }

  private async fetchToken(): Promise<string> {
    const url = `${this.config.apiUrl.replace(/\/+$/, '')}/v1/oauth/token`;
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: this.config.clientId, client_secret: this.config.clientSecret }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      const reason = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new UpstreamError(`Pipedream's token endpoint could not be reached (${reason})`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new UpstreamError(`Pipedream's token endpoint refused the client credentials (HTTP ${res.status})`);
    }
    let body: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw new UpstreamError("Pipedream's token endpoint answered with something that is not JSON");
    }
    if (typeof body?.access_token !== 'string' || body.access_token.length === 0) {
      throw new UpstreamError("Pipedream's token endpoint answered without an access token");
    }
    if (typeof body.token_type === 'string' && body.token_type.toLowerCase() !== 'bearer') {
      throw new UpstreamError(`Pipedream's token endpoint answered with a ${body.token_type} token, not a bearer token`);
    }
    const lifetimeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600) * 1000;
    const margin = Math.min(this.options.refreshMarginMs ?? 60_000, lifetimeMs / 10);
    this.cached = { value: body.access_token, refreshAt: this.now() + lifetimeMs - margin };
    this.fetched++;
    return body.access_token;
  }
}

const shared = new Map<string, PipedreamTokenProvider>();

/** One provider per process and Pipedream client, so the API and the worker in one process share the token. */
export function sharedPipedreamTokenProvider(config: PipedreamCredentialsConfig): PipedreamTokenProvider {
  const key = createHash('sha256').update(`${config.apiUrl}\n${config.clientId}\n${config.clientSecret}`).digest('hex');
  let provider = shared.get(key);
  if (!provider) {
    provider = new PipedreamTokenProvider(config);
    shared.set(key, provider);
  }
  return provider;
}
