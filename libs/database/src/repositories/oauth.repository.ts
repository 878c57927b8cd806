import { ServerAuthorizationView } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { isUuid } from '../page';
import { Sql } from '../sql';
import { SQL } from '../tokens';

/** A client of one authorization server, as registered (the secret sealed). */
export interface OAuthClientRecord {
  id: string;
  issuer: string;
  redirectUri: string;
  method: 'dynamic' | 'metadata-document';
  clientId: string;
  clientSecretCipher: string | null;
  tokenEndpointAuthMethod: string;
}

/** What detection found for a server, and the tokens held for it (sealed). */
export interface ServerOAuthRecord {
  serverId: string;
  resource: string;
  issuer: string;
  asMetadata: Record<string, unknown>;
  scopes: string[];
  tokensCipher: string | null;
  expiresAt: Date | null;
  obtainedAt: Date | null;
  clientId: string | null;
}

/** The registration's `auth` as stored: the secret sealed under the server's id. */
export interface ServerOAuthConfigRecord {
  config: { clientId?: string; scopes?: string[]; grant?: string } | null;
  clientSecretCipher: string | null;
}

/** An authorization request sent to a person (the verifier sealed). */
export interface OAuthRequestRecord {
  stateHash: string;
  serverId: string;
  tenantId: string | null;
  actorId: string;
  verifierCipher: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  expiresAt: Date;
}

export interface TokenWrite {
  tokensCipher: string;
  expiresAt: Date | null;
  scopes: string[];
  clientId: string;
}

/** A waiter on a server's authorization row lock gave up (the holder is slow): transient. */
export class RowLockTimeoutError extends Error {
  constructor(ms: number) {
    super(`the server's OAuth state stayed locked for more than ${ms} ms`);
    this.name = 'RowLockTimeoutError';
  }
}

/** The server's status to set beside an authorization change: ERROR with a reason, or unchanged. */
export interface StatusWrite {
  status: 'ERROR';
  reason: string;
}

const STATE_COLUMNS = `server_id AS "serverId", resource, issuer, as_metadata AS "asMetadata", scopes, tokens_cipher AS "tokensCipher",
  expires_at AS "expiresAt", obtained_at AS "obtainedAt", client_id AS "clientId"`;
const CLIENT_COLUMNS = `id, issuer, redirect_uri AS "redirectUri", method, client_id AS "clientId", client_secret_cipher AS "clientSecretCipher",
  token_endpoint_auth_method AS "tokenEndpointAuthMethod"`;

/**
 * Upstream OAuth's data: the clients per authorization server, each server's authorization state and tokens
 * (sealed by the caller; this repository never sees a token in clear), the authorization requests under way,
 * and the authorization view on the server row, written in the same transaction as the state it describes.
 */
@Injectable()
export class OAuthRepository {
  constructor(@Inject(SQL) private readonly sql: Sql) {}

  async findConfig(serverId: string): Promise<ServerOAuthConfigRecord | null> {
    if (!isUuid(serverId)) return null;
    const rows = await this.sql.query<ServerOAuthConfigRecord>(
      `SELECT oauth_config AS config, oauth_client_secret_cipher AS "clientSecretCipher" FROM servers WHERE id = $1::uuid`,
      [serverId],
    );
    return rows[0] ?? null;
  }

  /** Sets the registration's `auth` (null: none); the server's held tokens stay until forgotten. */
  async saveConfig(serverId: string, config: ServerOAuthConfigRecord['config'], clientSecretCipher: string | null): Promise<void> {
    await this.sql.query(`UPDATE servers SET oauth_config = $2::jsonb, oauth_client_secret_cipher = $3, updated_at = now() WHERE id = $1::uuid`, [
      serverId,
      config === null ? null : JSON.stringify(config),
      clientSecretCipher,
    ]);
  }

  async findClient(issuer: string, redirectUri: string): Promise<OAuthClientRecord | null> {
    const rows = await this.sql.query<OAuthClientRecord>(`SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE issuer = $1 AND redirect_uri = $2`, [issuer, redirectUri]);
    return rows[0] ?? null;
  }

  /** Keeps a newly registered client; when another process registered one first, that one wins and is returned. */
  async saveClient(client: Omit<OAuthClientRecord, 'id'>): Promise<OAuthClientRecord> {
    await this.sql.query(
      `INSERT INTO oauth_clients (id, issuer, redirect_uri, method, client_id, client_secret_cipher, token_endpoint_auth_method)
       VALUES ($1::uuid, $2, $3, $4, $5, $6, $7) ON CONFLICT (issuer, redirect_uri) DO NOTHING`,
      [randomUUID(), client.issuer, client.redirectUri, client.method, client.clientId, client.clientSecretCipher, client.tokenEndpointAuthMethod],
    );
    return (await this.findClient(client.issuer, client.redirectUri))!;
  }

  /** Drops a client the authorization server no longer knows (invalid_client), so that the next use registers again. */
  async deleteClient(id: string): Promise<void> {
    await this.sql.query(`DELETE FROM oauth_clients WHERE id = $1::uuid`, [id]);
  }

  async findState(serverId: string): Promise<ServerOAuthRecord | null> {
    if (!isUuid(serverId)) return null;
    const rows = await this.sql.query<ServerOAuthRecord>(`SELECT ${STATE_COLUMNS} FROM server_oauth WHERE server_id = $1::uuid`, [serverId]);
    return rows[0] ?? null;
  }

  /**
   * Records what detection found: the resource, its authorization server and the scopes to ask for. Tokens
   * held for another issuer or resource are dropped (they were refused, or are for a server that moved).
   */
  async saveDetection(
    serverId: string,
    found: { resource: string; issuer: string; asMetadata: Record<string, unknown>; scopes: string[] },
    view: ServerAuthorizationView,
  ): Promise<void> {
    await this.transaction(async (c) => {
      await c.query(
        `INSERT INTO server_oauth (server_id, resource, issuer, as_metadata, scopes) VALUES ($1::uuid, $2, $3, $4::jsonb, $5::text[])
         ON CONFLICT (server_id) DO UPDATE SET
           tokens_cipher = CASE WHEN server_oauth.issuer = EXCLUDED.issuer AND server_oauth.resource = EXCLUDED.resource THEN server_oauth.tokens_cipher END,
           expires_at = CASE WHEN server_oauth.issuer = EXCLUDED.issuer AND server_oauth.resource = EXCLUDED.resource THEN server_oauth.expires_at END,
           resource = EXCLUDED.resource, issuer = EXCLUDED.issuer, as_metadata = EXCLUDED.as_metadata, scopes = EXCLUDED.scopes, updated_at = now()`,
        [serverId, found.resource, found.issuer, JSON.stringify(found.asMetadata), found.scopes],
      );
      await this.writeView(c, serverId, view);
    });
  }

  /** Stores fresh tokens for a server and its view, in one transaction. */
  async saveTokens(serverId: string, tokens: TokenWrite, view: ServerAuthorizationView): Promise<void> {
    await this.transaction(async (c) => {
      await this.writeTokens(c, serverId, tokens);
      await this.writeView(c, serverId, view);
    });
  }

  /**
   * Runs `work` holding the lock of the server's authorization row (SELECT … FOR UPDATE): every process that
   * wants to refresh the server's token waits here, then reads the row again, so a token is refreshed once and
   * a rotated refresh token is never sent twice. `work` returns what to write before the lock is let go.
   */
  async withLockedState<T>(
    serverId: string,
    lockTimeoutMs: number,
    work: (state: ServerOAuthRecord | null) => Promise<{ result: T; tokens?: TokenWrite | null; view?: ServerAuthorizationView; status?: StatusWrite }>,
  ): Promise<T> {
    return this.transaction(async (c) => {
      // A waiter gives up rather than holding its connection for as long as the holder's authorization server hangs.
      await c.query(`SELECT set_config('lock_timeout', $1, true)`, [`${Math.max(1, Math.round(lockTimeoutMs))}ms`]);
      let rows;
      try {
        rows = await c.query<ServerOAuthRecord>(`SELECT ${STATE_COLUMNS} FROM server_oauth WHERE server_id = $1::uuid FOR UPDATE`, [serverId]);
      } catch (err) {
        if ((err as { code?: string }).code === '55P03') throw new RowLockTimeoutError(lockTimeoutMs);
        throw err;
      }
      const outcome = await work(rows.rows[0] ?? null);
      if (outcome.tokens) await this.writeTokens(c, serverId, outcome.tokens);
      if (outcome.tokens === null) await this.clearTokens(c, serverId);
      if (outcome.view) await this.writeView(c, serverId, outcome.view, outcome.status);
      return outcome.result;
    });
  }

  /** Forgets the server's tokens (the detection stays), with the view and status to show. */
  async forgetTokens(serverId: string, view: ServerAuthorizationView, status?: StatusWrite): Promise<void> {
    await this.transaction(async (c) => {
      await this.clearTokens(c, serverId);
      await this.writeView(c, serverId, view, status);
    });
  }

  /** Forgets everything about the server's authorization: tokens, detection and pending requests. */
  async forgetAll(serverId: string): Promise<void> {
    await this.transaction(async (c) => {
      await c.query(`DELETE FROM server_oauth WHERE server_id = $1::uuid`, [serverId]);
      await c.query(`DELETE FROM oauth_requests WHERE server_id = $1::uuid`, [serverId]);
      await this.writeView(c, serverId, { status: 'none' });
    });
  }

  async createRequest(request: OAuthRequestRecord): Promise<void> {
    // Requests nobody completed are dropped as new ones come: the table holds only what may still be used.
    await this.sql.query(`DELETE FROM oauth_requests WHERE expires_at < now() - interval '1 hour'`);
    await this.sql.query(
      `INSERT INTO oauth_requests (state_hash, server_id, tenant_id, actor_id, verifier_cipher, client_id, redirect_uri, scopes, expires_at)
       VALUES ($1, $2::uuid, $3::uuid, $4, $5, $6, $7, $8::text[], $9::timestamptz)`,
      [
        request.stateHash,
        request.serverId,
        request.tenantId,
        request.actorId,
        request.verifierCipher,
        request.clientId,
        request.redirectUri,
        request.scopes,
        request.expiresAt,
      ],
    );
  }

  /** Takes a request by its state's hash, once: a second take of the same state finds nothing. Expired ones too are taken (and refused by the caller). */
  async takeRequest(stateHash: string): Promise<OAuthRequestRecord | null> {
    const rows = await this.sql.query<OAuthRequestRecord>(
      `DELETE FROM oauth_requests WHERE state_hash = $1
       RETURNING state_hash AS "stateHash", server_id AS "serverId", tenant_id AS "tenantId", actor_id AS "actorId",
                 verifier_cipher AS "verifierCipher", client_id AS "clientId", redirect_uri AS "redirectUri", scopes, expires_at AS "expiresAt"`,
      [stateHash],
    );
    return rows[0] ?? null;
  }

  /** Whether a tenant's API key still stands (not revoked): a request made with a revoked key is not completed. */
  async keyStands(keyId: string, tenantId: string): Promise<boolean> {
    if (!isUuid(keyId)) return false;
    const rows = await this.sql.query(`SELECT 1 FROM api_keys WHERE id = $1::uuid AND tenant_id = $2::uuid AND revoked_at IS NULL`, [keyId, tenantId]);
    return rows.length === 1;
  }

  private async writeTokens(c: PoolClient, serverId: string, t: TokenWrite): Promise<void> {
    await c.query(
      `UPDATE server_oauth SET tokens_cipher = $2, expires_at = $3::timestamptz, obtained_at = now(), scopes = $4::text[], client_id = $5, updated_at = now()
        WHERE server_id = $1::uuid`,
      [serverId, t.tokensCipher, t.expiresAt, t.scopes, t.clientId],
    );
  }

  private async clearTokens(c: PoolClient, serverId: string): Promise<void> {
    await c.query(`UPDATE server_oauth SET tokens_cipher = NULL, expires_at = NULL, updated_at = now() WHERE server_id = $1::uuid`, [serverId]);
  }

  private async writeView(c: PoolClient, serverId: string, view: ServerAuthorizationView, status?: StatusWrite): Promise<void> {
    if (status) {
      await c.query(`UPDATE servers SET oauth_view = $2::jsonb, status = 'ERROR', status_reason = $3, updated_at = now() WHERE id = $1::uuid`, [
        serverId,
        JSON.stringify(view),
        status.reason,
      ]);
    } else {
      await c.query(`UPDATE servers SET oauth_view = $2::jsonb WHERE id = $1::uuid AND oauth_view IS DISTINCT FROM $2::jsonb`, [serverId, JSON.stringify(view)]);
    }
  }

  private async transaction<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = await this.sql.pool.connect();
    try {
      await c.query('BEGIN');
      const result = await work(c);
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }
}
