import type { LookupFunction } from 'node:net';
import type { InProcessServerDefinition } from '../in-process/in-process-servers';
import type { FetchLike } from './byte-budget';
import type { TargetAuthorization } from './upstream-authorizer';

/**
 * Everything needed to open one connection to a server, credentials already
 * applied. Holds secrets: it lives only for the connection and is never logged,
 * queued or stored. `secrets` lists the secret values so that error texts can
 * be cleaned of them.
 */
export type ConnectionTarget = HttpTarget | StdioTarget | InProcessTarget;

export interface HttpTarget {
  transport: 'streamable-http' | 'sse';
  url: URL;
  headers: Record<string, string>;
  /** The policy-checking fetch for tenant servers, the plain one for the operator's. */
  fetch: FetchLike;
  /** For tenant servers: a host name lookup that refuses addresses the outbound policy blocks (for node:http clients). */
  lookup?: LookupFunction;
  /**
   * For credentials the registry obtains itself (Pipedream's token): call when the server refused them (401),
   * so that the next connection gets fresh ones. Returns whether it will: only then is the refusal worth
   * another attempt.
   */
  refuseCredentials?: () => boolean;
  /** Upstream OAuth for CUSTOM and BUILT_IN servers (when the OAuth module is loaded): its token and refusals. */
  oauth?: TargetAuthorization;
  secrets: string[];
}

export interface StdioTarget {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  secrets: string[];
}

export interface InProcessTarget {
  transport: 'in-process';
  name: string;
  definition: InProcessServerDefinition;
  secrets: string[];
}
