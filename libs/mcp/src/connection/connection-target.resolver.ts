import { APP_CONFIG, AppConfig, credentialEnvRefusal } from '@app/config';
import { CredentialsCipher } from '@app/credentials';
import { ServerCredentials, ServerKind, ServerRecord, StoredCredentials, TransportType } from '@app/domain';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { LookupFunction } from 'node:net';
import { InProcessServers } from '../in-process/in-process-servers';
import { OutboundPolicy } from '../outbound-policy';
import { pipedreamHeaders, sharedPipedreamTokenProvider } from '../pipedream';
import { policyLookup } from '../pool/policy-lookup';
import type { FetchLike } from './byte-budget';
import { ConnectionTarget, HttpTarget } from './connection-target';
import { McpFailure, McpFailureCode } from './mcp-failure';
import { namedSecrets, urlSecrets } from './redaction';
import { StdioWorkspaces } from './stdio-workspaces';
import { challengeRecordingFetch, TargetAuthorization, UPSTREAM_AUTHORIZER, UpstreamAuthorizer } from './upstream-authorizer';

/** Variables a stdio server gets from the registry's own environment; everything else it is given explicitly. */
const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'SystemRoot'];

/**
 * Turns a server registration into a connection target, applying each kind's
 * credentials here and nowhere else:
 * - CUSTOM (a tenant's): its encrypted credentials; HTTP through the outbound
 *   policy's fetch, which checks every address at connect time and every redirect.
 * - BUILT_IN: its encrypted credentials, or `{env: VAR}` read from this
 *   process's environment at connect time (for stdio, passed to the child as VAR);
 *   VAR must be one meant for server credentials (MCP_SECRET_*, CREDENTIAL_ENV_ALLOW).
 * - EXTERNAL: the headers and credentials of its registration, `{env: VAR}` as for BUILT_IN.
 * - INTEGRATION: a Pipedream Connect token and the Pipedream headers of its
 *   app and account.
 * - INTERNAL: an in-process server, by name.
 */
@Injectable()
export class ConnectionTargetResolver {
  private policyFetch?: FetchLike;
  private policyLookup?: LookupFunction;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inProcess: InProcessServers,
    private readonly workspaces: StdioWorkspaces,
    private readonly cipher: CredentialsCipher,
    private readonly policy: OutboundPolicy,
    @Optional() @Inject(UPSTREAM_AUTHORIZER) private readonly authorizer?: UpstreamAuthorizer,
  ) {}

  async resolve(server: ServerRecord, stored: StoredCredentials): Promise<ConnectionTarget> {
    switch (server.transport) {
      case TransportType.IN_PROCESS:
        return this.inProcessTarget(server);
      case TransportType.STDIO:
        return this.stdioTarget(server, stored);
      case TransportType.SSE:
      case TransportType.STREAMABLE_HTTP:
        return this.httpTarget(server, stored);
    }
  }

  private inProcessTarget(server: ServerRecord): ConnectionTarget {
    const definition = this.inProcess.get(server.name);
    if (!definition) {
      throw new McpFailure(McpFailureCode.InvalidTarget, `no in-process server named "${server.name}" is registered in this process`);
    }
    return { transport: 'in-process', name: server.name, definition, secrets: [] };
  }

  private decrypt(server: ServerRecord, stored: StoredCredentials): ServerCredentials {
    if (!stored.credentialsCipher) return {};
    try {
      return this.cipher.decrypt(stored.credentialsCipher, server.id);
    } catch (err) {
      throw new McpFailure(McpFailureCode.CredentialsUnavailable, `the stored credentials cannot be used: ${(err as Error).message}`);
    }
  }

  /** BUILT_IN `{env: VAR}`: the variable's value, read now (so a rotated secret is picked up without a restart). */
  private envCredential(stored: StoredCredentials): { name: string; value: string } | undefined {
    const name = stored.credentialsEnv;
    if (!name) return undefined;
    // Checked again here: a reference stored before the rule, or a CREDENTIAL_ENV_ALLOW narrowed since.
    const refusal = credentialEnvRefusal(name, this.config.credentialEnvAllow);
    if (refusal) {
      throw new McpFailure(McpFailureCode.CredentialsUnavailable, `this server's credentials name the environment variable ${name}, which the registry refuses to send: ${refusal}`);
    }
    const value = process.env[name];
    if (value === undefined || value === '') {
      throw new McpFailure(
        McpFailureCode.CredentialsUnavailable,
        `the environment variable ${name}, which holds this server's credentials, is not set on the worker`,
      );
    }
    return { name, value };
  }

  private stdioTarget(server: ServerRecord, stored: StoredCredentials): ConnectionTarget {
    if (server.tenantId !== null || server.kind === ServerKind.CUSTOM || server.kind === ServerKind.INTEGRATION) {
      throw new McpFailure(
        McpFailureCode.InvalidTarget,
        "a tenant's server cannot run a command on the registry's machines; register it with streamable-http or sse",
      );
    }
    if (!server.command) throw new McpFailure(McpFailureCode.InvalidTarget, 'a stdio server needs a command');
    const env: Record<string, string> = {};
    for (const name of INHERITED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name]!;
    const cwd = this.workspaces.prepare(server.id);
    env.HOME = cwd;
    Object.assign(env, server.env);
    // Values of the program's environment whose names say they are credentials are its secrets too.
    const secrets: string[] = namedSecrets(server.env);
    const fromEnv = server.kind === ServerKind.BUILT_IN || server.kind === ServerKind.EXTERNAL ? this.envCredential(stored) : undefined;
    if (fromEnv) {
      env[fromEnv.name] = fromEnv.value;
      secrets.push(fromEnv.value);
    }
    return { transport: 'stdio', command: server.command, args: server.args, env, cwd, secrets };
  }

  private async httpTarget(server: ServerRecord, stored: StoredCredentials): Promise<ConnectionTarget> {
    const transport = server.transport === TransportType.SSE ? 'sse' : 'streamable-http';
    const headers: Record<string, string> = { ...server.headers };
    const secrets: string[] = [];
    let raw = server.url;
    let refuseCredentials: (() => boolean) | undefined;
    if (server.kind === ServerKind.INTEGRATION) {
      const pd = this.config.pipedream;
      if (!pd) {
        throw new McpFailure(
          McpFailureCode.CredentialsUnavailable,
          'INTEGRATION servers need Pipedream Connect, which is not configured (PIPEDREAM_CLIENT_ID, PIPEDREAM_CLIENT_SECRET, PIPEDREAM_PROJECT_ID)',
        );
      }
      if (!server.tenantId || !server.appSlug) {
        throw new McpFailure(McpFailureCode.InvalidTarget, 'an INTEGRATION server needs its tenant and app');
      }
      raw ??= pd.mcpUrl;
      const provider = sharedPipedreamTokenProvider(pd);
      const token = await provider
        .getToken()
        .catch((err: Error) => {
          const unreachable = /could not be reached/.test(err.message);
          throw new McpFailure(unreachable ? McpFailureCode.DependencyUnavailable : McpFailureCode.CredentialsUnavailable, err.message);
        });
      Object.assign(headers, pipedreamHeaders(pd, token, { tenantId: server.tenantId, appSlug: server.appSlug, accountId: server.accountId }));
      refuseCredentials = () => provider.invalidate(token);
      secrets.push(token);
    }
    if (!raw) throw new McpFailure(McpFailureCode.InvalidTarget, `a ${transport} server needs a URL`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new McpFailure(McpFailureCode.InvalidTarget, 'the URL is not valid');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new McpFailure(McpFailureCode.InvalidTarget, `the URL scheme ${url.protocol} is not http or https`);
    }
    const credentials = this.decrypt(server, stored);
    if (credentials.bearerToken) {
      headers.authorization = `Bearer ${credentials.bearerToken}`;
      secrets.push(credentials.bearerToken);
    }
    for (const [name, value] of Object.entries(credentials.headers ?? {})) {
      headers[name.toLowerCase()] = value;
      secrets.push(value);
    }
    if (server.kind === ServerKind.BUILT_IN || server.kind === ServerKind.EXTERNAL) {
      const fromEnv = this.envCredential(stored);
      if (fromEnv) {
        headers.authorization = `Bearer ${fromEnv.value}`;
        secrets.push(fromEnv.value);
      }
    }
    secrets.push(...urlSecrets(url));
    let fetch: FetchLike = globalThis.fetch;
    let lookup: LookupFunction | undefined;
    if (server.kind === ServerKind.CUSTOM) {
      // Checked now for a clear reason, and again by the fetch (or lookup) at connect time and on every redirect.
      this.policy.checkUrl(url.href);
      this.policyFetch ??= this.policy.createFetch() as FetchLike;
      this.policyLookup ??= policyLookup(this.policy);
      fetch = this.policyFetch;
      lookup = this.policyLookup;
    }
    let oauth: TargetAuthorization | undefined;
    if (this.authorizer && (server.kind === ServerKind.CUSTOM || server.kind === ServerKind.BUILT_IN)) {
      // An OAuth token held for the server replaces a static Authorization header: it is what the server asked for.
      oauth = await this.authorization(server, fetch, this.authorizer);
      if (oauth.token) {
        headers.authorization = `Bearer ${oauth.token}`;
        secrets.push(oauth.token);
      }
      fetch = challengeRecordingFetch(fetch, oauth.record);
    }
    // The whole Authorization value too: a server that echoes its header line encodes it with its scheme.
    if (headers.authorization) secrets.push(headers.authorization);
    const target: HttpTarget = {
      transport,
      url,
      headers,
      fetch,
      ...(lookup ? { lookup } : {}),
      ...(refuseCredentials ? { refuseCredentials } : {}),
      ...(oauth ? { oauth } : {}),
      secrets,
    };
    return target;
  }

  private async authorization(server: ServerRecord, fetch: FetchLike, authorizer: UpstreamAuthorizer): Promise<TargetAuthorization> {
    const held = await authorizer.tokenFor(server, fetch);
    const oauth: TargetAuthorization = {
      token: held?.accessToken,
      expiresAt: held?.expiresAt ?? null,
      record: (status, header) => {
        oauth.lastChallenge = { status, header };
      },
      refused: (status) => authorizer.refused(server, oauth.lastChallenge ?? { status: status ?? 401, header: null }, held?.accessToken, fetch),
    };
    return oauth;
  }
}
