import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { formatMs, InvalidInputError } from '@app/domain';
import { AddressRange, classifyAddress, ipv4Blocked, parseAddress, ParsedAddress } from './special-addresses';

/** A URL the platform refuses to reach on a tenant's behalf. The message is safe to show the tenant. */
export class OutboundBlockedError extends Error {
  readonly code = 'OUTBOUND_BLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundBlockedError';
  }
}

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'metadata.azure.internal']);

/** Headers that say how to speak, not who is speaking: the only ones kept across origins. */
const CROSS_ORIGIN_SAFE_HEADERS = new Set(['accept', 'content-type', 'mcp-protocol-version', 'user-agent', 'last-event-id']);

function safeHeaders(headers: RequestInit['headers']): Record<string, string> {
  const kept: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    if (CROSS_ORIGIN_SAFE_HEADERS.has(name.toLowerCase())) kept[name] = value;
  });
  return kept;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** How long a registration waits for its URL's host to resolve. */
export const REGISTRATION_LOOKUP_TIMEOUT_MS = 5000;

/** Every address a host name resolves to. */
export type LookupAll = (host: string) => Promise<LookupAddress[]>;

/** The host name resolver of the outbound policy (tests give their own; nothing else should). */
export const OUTBOUND_LOOKUP = Symbol('OUTBOUND_LOOKUP');

export interface OutboundPolicyOptions {
  /** How host names are resolved, at registration and at connect time alike (default: the system resolver). */
  lookup?: LookupAll;
  /** How long a registration waits for a lookup (REGISTRATION_LOOKUP_TIMEOUT_MS). */
  lookupTimeoutMs?: number;
}

function systemLookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));
}

/**
 * Where servers registered by tenants may point: https (or http to an allowed
 * host), never to loopback, private, link-local, CGNAT or metadata addresses
 * unless the operator allowed the host or range in MCP_OUTBOUND_ALLOW. Checked
 * on the resolved addresses at registration and again on every connection and
 * every redirect hop, so a DNS answer that changes later does not get through.
 */
export class OutboundPolicy {
  private readonly allowHosts: string[] = [];
  private readonly allowRanges: AddressRange[] = [];
  private readonly lookupAll: LookupAll;
  private readonly lookupTimeoutMs: number;

  constructor(allow: string[], options: OutboundPolicyOptions = {}) {
    this.lookupAll = options.lookup ?? systemLookupAll;
    this.lookupTimeoutMs = options.lookupTimeoutMs ?? REGISTRATION_LOOKUP_TIMEOUT_MS;
    for (const entry of allow.map((a) => a.trim().toLowerCase()).filter(Boolean)) {
      const range = AddressRange.parse(entry);
      if (range) this.allowRanges.push(range);
      else this.allowHosts.push(entry);
    }
  }

  private hostAllowed(host: string): boolean {
    return this.allowHosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) : host === h));
  }

  private addressAllowed(address: ParsedAddress): boolean {
    return this.allowRanges.some((r) => r.contains(address));
  }

  /**
   * Why an address may not be reached, or undefined when it may: an address the operator allowed, or a global
   * unicast one (an IPv6 form that carries IPv4 addresses is judged by them).
   */
  refusal(raw: string): string | undefined {
    const address = parseAddress(raw);
    if (!address) return 'not an IP address';
    if (this.addressAllowed(address)) return undefined;
    const kind = classifyAddress(address);
    if (kind.blocked) return `an address ${kind.blocked}`;
    for (const e of kind.embedded ?? []) {
      if (this.addressAllowed(e.ipv4)) continue;
      const blocked = ipv4Blocked(e.ipv4.value);
      const carries = e.role ? `whose ${e.role} address is ${e.ipv4.text}` : `that carries ${e.ipv4.text}`;
      if (blocked) return `${e.form} ${carries}, an address ${blocked}`;
    }
    if (kind.localPrefix && !(kind.embedded ?? []).every((e) => this.addressAllowed(e.ipv4))) {
      return `an address ${kind.localPrefix}, which is not globally reachable`;
    }
    return undefined;
  }

  /** Checks the scheme and host of a URL without resolving it. */
  checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundBlockedError('the URL is not valid');
    }
    if (url.username || url.password) throw new OutboundBlockedError('the URL must not carry a user name or password; use credentials');
    const host = hostOf(url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundBlockedError(`the URL scheme ${url.protocol} is not allowed; use https`);
    const literal = parseAddress(host);
    const ipAllowed = literal !== undefined && this.addressAllowed(literal);
    if (url.protocol === 'http:' && !this.hostAllowed(host) && !ipAllowed) {
      throw new OutboundBlockedError(`plain http is not allowed for ${host}; use https (or ask the operator to add the host to MCP_OUTBOUND_ALLOW)`);
    }
    if (METADATA_HOSTS.has(host) && !this.hostAllowed(host)) throw new OutboundBlockedError(`${host} is a cloud metadata address`);
    if (literal) this.checkAddress(host, host);
    return url;
  }

  /** Throws when one resolved address of `host` is blocked (`host` the address itself for a literal). */
  checkAddress(host: string, address: string): void {
    if (this.hostAllowed(host)) return;
    const why = this.refusal(address);
    if (!why) return;
    const what = host === address ? address : `${host} resolves to ${address},`;
    throw new OutboundBlockedError(`${what} ${why}, which tenant servers may not reach`);
  }

  /**
   * A host name lookup for connections (node:net, node:http, undici) that refuses, at connect time, any
   * address the policy blocks: the address checked is the address connected to, so a DNS answer that changes
   * between a check and the connection (rebinding) does not get through.
   */
  connectLookup(): LookupFunction {
    return (hostname, options, callback) => {
      const done = callback as (err: Error | null, address: string | LookupAddress[], family?: number) => void;
      const family = typeof options === 'object' && options ? options.family : undefined;
      this.lookupAll(hostname).then(
        (all) => {
          const wanted = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
          try {
            for (const a of wanted) this.checkAddress(hostname.toLowerCase(), a.address);
          } catch (blocked) {
            return done(blocked as Error, []);
          }
          if (wanted.length === 0) return done(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
          if ((options as { all?: boolean }).all) return done(null, wanted);
          done(null, wanted[0].address, wanted[0].family);
        },
        (err: Error) => done(err, []),
      );
    };
  }

  /**
   * Resolves the URL's host and checks every address it resolves to (registration-time check). A host whose
   * lookup takes longer than the deadline is refused: a registration never waits on a resolver that does not
   * answer (the lookup itself goes on in the background until the system resolver gives up).
   */
  async assertAllowed(raw: string): Promise<URL> {
    const url = this.checkUrl(raw);
    const host = hostOf(url);
    if (isIP(host) || this.hostAllowed(host)) return url;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new OutboundBlockedError(`${host} did not resolve within ${formatMs(this.lookupTimeoutMs)}`)), this.lookupTimeoutMs);
    });
    const lookup = this.lookupAll(host).catch((err: NodeJS.ErrnoException) => {
      throw new OutboundBlockedError(`${host} does not resolve (${err.code ?? 'lookup failed'})`);
    });
    let addresses: LookupAddress[];
    try {
      addresses = await Promise.race([lookup, deadline]);
    } finally {
      clearTimeout(timer);
    }
    for (const a of addresses) this.checkAddress(host, a.address);
    return url;
  }

  /**
   * A fetch for connectors: checks the URL, resolves through a lookup that
   * refuses blocked addresses at connect time (so the address checked is the
   * address used), and follows redirects itself, checking each hop.
   */
  createFetch(maxRedirects = 5): typeof fetch {
    const policy = this;
    const dispatcher = new Agent({ connect: { lookup: this.connectLookup() } });
    const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      let url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      let currentInit = init;
      for (let hop = 0; ; hop++) {
        policy.checkUrl(url);
        let res: Response;
        try {
          res = (await undiciFetch(url, { ...(currentInit as object), redirect: 'manual', dispatcher } as never)) as unknown as Response;
        } catch (err) {
          const cause = (err as { cause?: unknown }).cause;
          if (cause instanceof OutboundBlockedError) throw cause;
          throw err;
        }
        const location = res.headers.get('location');
        if (res.status >= 300 && res.status < 400 && location) {
          if (hop >= maxRedirects) throw new OutboundBlockedError(`more than ${maxRedirects} redirects`);
          const next = new URL(location, url);
          await res.body?.cancel().catch(() => undefined);
          // Credentials are for the server they were given for: a hop to another origin carries none of them.
          if (next.origin !== new URL(url).origin) currentInit = { ...currentInit, headers: safeHeaders(currentInit?.headers) };
          // 303, and 301/302 after POST, turn into GET as browsers do; 307/308 keep method and body.
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && currentInit?.method === 'POST')) {
            currentInit = { ...currentInit, method: 'GET', body: undefined };
          }
          url = next.href;
          continue;
        }
        return res;
      }
    };
    return guarded as typeof fetch;
  }
}

/** Checks a tenant-supplied URL against the policy (resolving its host); a refusal is a 400 naming the field. */
export async function assertOutboundAllowed(policy: OutboundPolicy, url: string, field = 'url'): Promise<void> {
  try {
    await policy.assertAllowed(url);
  } catch (err) {
    if (err instanceof OutboundBlockedError) {
      throw new InvalidInputError(`${field}: ${err.message}`, [{ field, message: err.message }]);
    }
    throw err;
  }
}
