import { isIP } from 'node:net';

/**
 * Which IP addresses are globally reachable unicast, by the IANA special-purpose address registries
 * (https://www.iana.org/assignments/iana-ipv4-special-registry, .../iana-ipv6-special-registry) and the IPv6
 * address space registry (only 2000::/3 is global unicast). Every IPv6 form that carries an IPv4 address
 * (mapped, compatible, translated, NAT64, 6to4, Teredo) is judged as the IPv4 address it carries.
 *
 * Parsing is the WHATWG URL host parser's (Node's own, the one that reads every URL the registry is given):
 * it reads IPv4 in every form a URL may write it (`127.1`, `0x7f.1`, `2130706433`, `0177.0.0.1`) and IPv6 with
 * zero compression and embedded dotted quads. (ipaddr.js was considered: it reads `::127.0.0.1` as the mapped
 * `::ffff:127.0.0.1`, and knows neither `::/96` nor the IPv4 inside 6to4, Teredo and NAT64 addresses.)
 */

export interface ParsedAddress {
  family: 4 | 6;
  /** The address as a number: 32 bits for IPv4, 128 for IPv6. */
  value: bigint;
  /** The canonical text (IPv6 compressed, lower case, without a zone). */
  text: string;
  /** The zone of a scoped IPv6 address (`fe80::1%eth0`), if one was written. */
  zone?: string;
}

/** Reads an IP address in any form a URL host may take; undefined when the text is not an IP address. */
export function parseAddress(raw: string): ParsedAddress | undefined {
  let text = raw.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.length === 0 || /[\s/?#@\\]/.test(text)) return undefined;
  if (text.includes(':')) {
    const percent = text.indexOf('%');
    const zone = percent >= 0 ? text.slice(percent + 1) : undefined;
    if (percent >= 0) text = text.slice(0, percent);
    let host: string;
    try {
      host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    } catch {
      return undefined;
    }
    if (isIP(host) !== 6) return undefined;
    return { family: 6, value: ipv6Value(host), text: host, ...(zone ? { zone } : {}) };
  }
  let host: string;
  try {
    host = new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
  if (isIP(host) !== 4) return undefined;
  return { family: 4, value: ipv4Value(host), text: host };
}

function ipv4Value(dotted: string): bigint {
  return dotted.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

/** The value of a canonical IPv6 text (as the URL parser writes it: hex groups, at most one `::`). */
function ipv6Value(canonical: string): bigint {
  const [head, tail] = canonical.split('::');
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

export function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => Number((value >> shift) & 255n)).join('.');
}

function ipv6Text(value: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

interface Range {
  family: 4 | 6;
  base: bigint;
  prefix: number;
  /** Where an address of the range is, for a refusal ("in the loopback range 127.0.0.0/8"). */
  label: string;
}

function range(cidr: string, name: string): Range {
  const [addr, bits] = cidr.split('/');
  const parsed = parseAddress(addr);
  if (!parsed) throw new Error(`not an address: ${cidr}`);
  return { family: parsed.family, base: parsed.value, prefix: Number(bits), label: `in the ${name} range ${cidr}` };
}

function inRange(r: Range, family: 4 | 6, value: bigint): boolean {
  if (r.family !== family) return false;
  const width = family === 4 ? 32 : 128;
  const shift = BigInt(width - r.prefix);
  return value >> shift === r.base >> shift;
}

/**
 * IPv4 ranges that are not globally reachable (IANA IPv4 special-purpose registry, plus multicast and the
 * reserved 240/4), most specific first. The registry's globally reachable entries (AS112 192.31.196.0/24 and
 * 192.175.48.0/24, AMT 192.52.193.0/24) are ordinary unicast here. 192.0.0.0/24 is refused whole, its two
 * anycast entries (PCP, TURN) included: no MCP server lives there.
 */
const IPV4_RANGES: Range[] = [
  range('0.0.0.0/8', '"this network"'),
  range('10.0.0.0/8', 'private-use'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local, cloud metadata'),
  range('172.16.0.0/12', 'private-use'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'deprecated 6to4 relay anycast'),
  range('192.168.0.0/16', 'private-use'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'limited broadcast'),
  range('240.0.0.0/4', 'reserved'),
];

/**
 * IPv6 ranges that are not globally reachable and carry no IPv4 address (IANA IPv6 special-purpose registry
 * and address space registry), most specific first. Past these, only 2000::/3 is global unicast.
 * 2001::/23 is refused whole beyond Teredo (its anycast and AMT entries included): benchmarking, ORCHID, ORCHIDv2
 * and drone identifiers are identifiers or test ranges, and no MCP server lives in the rest.
 */
const IPV6_RANGES: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('100::/64', 'discard-only'),
  range('100:0:0:1::/64', 'dummy prefix'),
  range('2001:2::/48', 'benchmarking'),
  range('2001:10::/28', 'deprecated ORCHID'),
  range('2001:20::/28', 'ORCHIDv2'),
  range('2001:30::/28', 'drone remote ID'),
  range('2001::/23', 'IETF protocol assignments'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
  range('5f00::/16', 'segment routing SIDs'),
  range('fc00::/7', 'unique local, private'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local, deprecated'),
  range('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST_V6 = range('2000::/3', 'global unicast');

/** An IPv4 address an IPv6 address carries, and the form that carries it. */
export interface EmbeddedIpv4 {
  /** The IPv6 form, as a refusal names it ("an IPv4-mapped address (::ffff:0:0/96)"). */
  form: string;
  /** Which of several it is (Teredo's server and client). */
  role?: 'server' | 'client';
  ipv4: ParsedAddress;
}

const MASK_32 = 0xffffffffn;

function v4(value: bigint): ParsedAddress {
  const masked = value & MASK_32;
  return { family: 4, value: masked, text: ipv4Text(masked) };
}

interface Wrapper {
  range: Range;
  /** The IPv4 addresses inside (Teredo carries two). */
  extract(value: bigint): EmbeddedIpv4[];
  /** The prefix itself is not globally reachable (local-use NAT64): refused whatever it carries, unless allowed. */
  local?: boolean;
}

const WRAPPERS: Wrapper[] = [
  { range: range('::ffff:0:0/96', 'IPv4-mapped'), extract: (v) => [{ form: 'an IPv4-mapped address (::ffff:0:0/96)', ipv4: v4(v) }] },
  { range: range('::ffff:0:0:0/96', 'IPv4-translated'), extract: (v) => [{ form: 'an IPv4-translated address (::ffff:0:0:0/96)', ipv4: v4(v) }] },
  // ::/96 less :: and ::1, which the ranges above name for what they are.
  { range: range('::/96', 'IPv4-compatible'), extract: (v) => [{ form: 'an IPv4-compatible address (::/96)', ipv4: v4(v) }] },
  { range: range('64:ff9b::/96', 'NAT64'), extract: (v) => [{ form: 'a NAT64 address (64:ff9b::/96)', ipv4: v4(v) }] },
  // Local-use NAT64 (RFC 8215): the site chooses how the IPv4 is laid out; read here as the /96 layout.
  { range: range('64:ff9b:1::/48', 'local-use NAT64'), extract: (v) => [{ form: 'a local-use NAT64 address (64:ff9b:1::/48)', ipv4: v4(v) }], local: true },
  { range: range('2002::/16', '6to4'), extract: (v) => [{ form: 'a 6to4 address (2002::/16)', ipv4: v4(v >> 80n) }] },
  {
    range: range('2001::/32', 'Teredo'),
    extract: (v) => [
      { form: 'a Teredo address (2001::/32)', role: 'server', ipv4: v4(v >> 64n) },
      { form: 'a Teredo address (2001::/32)', role: 'client', ipv4: v4((v & MASK_32) ^ MASK_32) },
    ],
  },
];

/**
 * What an address is, as far as reaching it goes: `blocked` names the range of an address that is not
 * globally reachable; `embedded` lists the IPv4 addresses an IPv6 form carries, which decide instead of it
 * (`localPrefix` when the carrying prefix is itself local).
 */
export interface AddressClass {
  address: ParsedAddress;
  blocked?: string;
  embedded?: EmbeddedIpv4[];
  localPrefix?: string;
}

export function ipv4Blocked(value: bigint): string | undefined {
  return IPV4_RANGES.find((r) => inRange(r, 4, value))?.label;
}

export function classifyAddress(address: ParsedAddress): AddressClass {
  if (address.family === 4) return { address, blocked: ipv4Blocked(address.value) };
  const special = IPV6_RANGES.find((r) => inRange(r, 6, address.value));
  // :: and ::1 are what they are, not IPv4-compatible forms of 0.0.0.0 and 0.0.0.1.
  if (special && special.prefix === 128) return { address, blocked: special.label };
  const wrapper = WRAPPERS.find((w) => inRange(w.range, 6, address.value));
  if (wrapper) return { address, embedded: wrapper.extract(address.value), ...(wrapper.local ? { localPrefix: wrapper.range.label } : {}) };
  if (special) return { address, blocked: special.label };
  if (!inRange(GLOBAL_UNICAST_V6, 6, address.value)) return { address, blocked: 'outside the global unicast range 2000::/3 (reserved by the IETF)' };
  return { address };
}

/** A range of the operator's allow list (MCP_OUTBOUND_ALLOW): an address or a CIDR. */
export class AddressRange {
  private constructor(private readonly r: Range) {}

  /** Reads `10.0.0.0/8`, `fd00::/8` or a single address; undefined when the text is neither. */
  static parse(text: string): AddressRange | undefined {
    const [addr, bits, ...rest] = text.trim().split('/');
    if (rest.length > 0 || addr.includes('%')) return undefined;
    const parsed = parseAddress(addr);
    if (!parsed) return undefined;
    const width = parsed.family === 4 ? 32 : 128;
    const prefix = bits === undefined ? width : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (!(prefix >= 0 && prefix <= width)) return undefined;
    return new AddressRange({ family: parsed.family, base: parsed.value, prefix, label: text });
  }

  contains(address: ParsedAddress): boolean {
    return inRange(this.r, address.family, address.value);
  }

  toString(): string {
    return `${this.r.family === 4 ? ipv4Text(this.r.base) : ipv6Text(this.r.base)}/${this.r.prefix}`;
  }
}
