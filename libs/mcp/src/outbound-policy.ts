import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

/** A URL the platform refuses to reach on a tenant's behalf. The message is safe to show the tenant. */
export class OutboundBlockedError extends Error {
  readonly code = 'OUTBOUND_BLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundBlockedError';
  }
}

const BLOCKED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const BLOCKED_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
  ['100::', 64, 'discard'],
];
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'metadata.azure.internal']);

function classify(address: string): string | undefined {
  let ip = address;
  // IPv4-mapped and NAT64 IPv6 addresses carry an IPv4 address that decides.
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) ip = mapped[1];
  const mappedHex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (mappedHex) {
    const hi = parseInt(mappedHex[1], 16);
    const lo = parseInt(mappedHex[2], 16);
    ip = [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  const family = isIP(ip);
  if (family === 0) return 'not an IP address';
  for (const [net, prefix, label] of family === 4 ? BLOCKED_V4 : BLOCKED_V6) {
    const list = new BlockList();
    list.addSubnet(net, prefix, family === 4 ? 'ipv4' : 'ipv6');
    if (list.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return label;
  }
    return undefined;
}

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

export interface OutboundPolicyOptions {
  /** How a registration resolves host names (the system resolver, as connections use). */
  lookup?: LookupAll;
  /** How long a registration waits for a lookup (REGISTRATION_LOOKUP_TIMEOUT_MS). */
  lookupTimeoutMs?: number;
}

function systemLookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
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
  private readonly allowNets = new BlockList();
  private hasAllowNets = false;
  private readonly lookupAll: LookupAll;
  private readonly lookupTimeoutMs: number;

  constructor(allow: string[], options: OutboundPolicyOptions = {}) {
    this.lookupAll = options.lookup ?? systemLookupAll;
    this.lookupTimeoutMs = options.lookupTimeoutMs ?? REGISTRATION_LOOKUP_TIMEOUT_MS;
    for (const entry of allow.map((a) => a.trim().toLowerCase()).filter(Boolean)) {
      const [addr, prefix] = entry.split('/');
      const family = isIP(addr);
      if (family) {
        const bits = prefix !== undefined ? Number(prefix) : family === 4 ? 32 : 128;
        this.allowNets.addSubnet(addr, bits, family === 4 ? 'ipv4' : 'ipv6');
        this.hasAllowNets = true;
      } else {
        this.allowHosts.push(entry);
      }
    }
  }

  private hostAllowed(host: string): boolean {
    return this.allowHosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) : host === h));
  }

  private addressAllowed(ip: string): boolean {
    if (!this.hasAllowNets) return false;
    const family = isIP(ip);
    return family !== 0 && this.allowNets.check(ip, family === 4 ? 'ipv4' : 'ipv6');
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
    const ipAllowed = isIP(host) !== 0 && this.addressAllowed(host);
    if (url.protocol === 'http:' && !this.hostAllowed(host) && !ipAllowed) {
      throw new OutboundBlockedError(`plain http is not allowed for ${host}; use https (or ask the operator to add the host to MCP_OUTBOUND_ALLOW)`);
    }
    if (METADATA_HOSTS.has(host) && !this.hostAllowed(host)) throw new OutboundBlockedError(`${host} is a cloud metadata address`);
    if (isIP(host)) this.checkAddress(host, host);
    return url;
  }

  /** Throws when one resolved address of `host` is blocked. */
  checkAddress(host: string, address: string): void {
    if (this.hostAllowed(host) || this.addressAllowed(address)) return;
    const why = classify(address);
    if (why) throw new OutboundBlockedError(`${host} resolves to ${address}, an address in a ${why} range, which tenant servers may not reach`);
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
    const dispatcher = new Agent({
      connect: {
        lookup(hostname, options, callback) {
          dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
            if (err) return callback(err, [] as never, 0 as never);
            const list = addresses as LookupAddress[];
            try {
              for (const a of list) policy.checkAddress(hostname.toLowerCase(), a.address);
            } catch (blocked) {
              return callback(blocked as Error, [] as never, 0 as never);
            }
            if ((options as { all?: boolean }).all) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
            callback(null, list[0].address, list[0].family);
          });
        },
      },
    });
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
