import { createHash } from 'node:crypto';
import { ServerAuthConfig, ServerRecord } from './server';

/**
 * How a server is reached: the one definition. Whatever is built on a connection (a pooled session, a watch for
 * tool list changes, a discovery's result) is good only for the connection it was made with; a change to any part
 * of it means a new discovery, new sessions and a new watch.
 */
export interface ServerConnection extends Pick<ServerRecord, 'transport' | 'url' | 'command' | 'args' | 'env' | 'headers'> {
  /**
   * Whatever changes exactly when the credentials change: their sealed form and environment reference as stored,
   * or (to compare wanted credentials with stored ones before sealing) their plain form. Only ever hashed.
   */
  credentials: unknown;
  /** The registration's OAuth client, less its secret (whether there is one is part of it). */
  auth: ServerAuthConfig | null;
  /** An INTEGRATION server's app and connected account. */
  integration: { appSlug: string | null; accountId: string | null };
}

/**
 * The registration fields, as the REST API names them, that make up the connection: a change that gives any of them
 * asks for a new discovery. (An integration's app and account are not registration fields: they never change.)
 */
export const CONNECTION_FIELDS = ['transport', 'url', 'command', 'args', 'env', 'headers', 'credentials', 'auth'] as const;
export type ConnectionField = (typeof CONNECTION_FIELDS)[number];

/** A stored server's connection, from its record and its stored secret material. */
export function connectionOf(
  server: Pick<ServerRecord, 'transport' | 'url' | 'command' | 'args' | 'env' | 'headers' | 'auth' | 'appSlug' | 'accountId'>,
  credentials: { credentialsCipher: string | null; credentialsEnv: string | null },
): ServerConnection {
  return {
    transport: server.transport,
    url: server.url,
    command: server.command,
    args: server.args,
    env: server.env,
    headers: server.headers,
    credentials: [credentials.credentialsCipher, credentials.credentialsEnv],
    auth: server.auth ?? null,
    integration: { appSlug: server.appSlug, accountId: server.accountId },
  };
}

/** JSON with every object's keys sorted: equal values, equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** A fingerprint of a connection (sha256, hex): equal exactly when the connections are the same. */
export function connectionFingerprint(c: ServerConnection): string {
  const parts = [c.transport, c.url, c.command, c.args, c.env, c.headers, c.credentials ?? null, c.auth, c.integration];
  return createHash('sha256').update(canonical(parts)).digest('hex');
}
