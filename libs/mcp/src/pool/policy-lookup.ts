import type { LookupFunction } from 'node:net';
import type { OutboundPolicy } from '../outbound-policy';

/**
 * A host name lookup for connections to tenant servers that refuses, at connect time, any address the
 * outbound policy blocks (its resolver, its classifier): the address checked is the address connected to (no
 * DNS rebinding between a check and the connection). Addresses written as IP literals are checked with the
 * URL, before connecting.
 */
export function policyLookup(policy: OutboundPolicy): LookupFunction {
  return policy.connectLookup();
}
