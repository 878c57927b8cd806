import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { OutboundPolicy } from '../outbound-policy';

/**
 * A host name lookup for connections to tenant servers that refuses, at connect time, any address the
 * outbound policy blocks: the address checked is the address connected to (no DNS rebinding between a
 * check and the connection). Addresses written as IP literals are checked with the URL, before connecting.
 */
export function policyLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      const done = callback as (err: Error | null, address: string | LookupAddress[], family?: number) => void;
      if (err) return done(err, []);
      const list = addresses as LookupAddress[];
      try {
        for (const a of list) policy.checkAddress(hostname.toLowerCase(), a.address);
      } catch (blocked) {
        return done(blocked as Error, []);
      }
      if (list.length === 0) return done(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
      if ((options as { all?: boolean }).all) return done(null, list);
      done(null, list[0].address, list[0].family);
    });
  };
}
