import { LookupAll, OUTBOUND_LOOKUP } from '@app/mcp';
import { DynamicModule, Global, Module } from '@nestjs/common';
import type { LookupAddress } from 'node:dns';

export interface FakeResolver {
  /** Each host's answers: one per lookup, the last one kept for every lookup after it (so a host may rebind). */
  answers: Map<string, LookupAddress[][]>;
  /** Every host looked up, in order. */
  asked: string[];
  lookup: LookupAll;
  /** Mount beside the application's modules: the registry then resolves through this zone only. */
  module: DynamicModule;
}

/**
 * What the registry's resolver answers for each host, as a DNS server could: the test's own, so that no
 * connection leaves loopback. Registration and connections both resolve through it; a host may answer one
 * thing at registration and another afterwards (rebinding).
 */
export function fakeResolver(): FakeResolver {
  const answers = new Map<string, LookupAddress[][]>();
  const asked: string[] = [];
  const lookup: LookupAll = async (host) => {
    asked.push(host);
    const queue = answers.get(host);
    if (!queue) throw Object.assign(new Error(`${host} is not in the test's zone`), { code: 'ENOTFOUND' });
    return queue.length > 1 ? queue.shift()! : queue[0];
  };
  @Global()
  @Module({})
  class TestResolverModule {}
  return {
    answers,
    asked,
    lookup,
    module: { module: TestResolverModule, global: true, providers: [{ provide: OUTBOUND_LOOKUP, useValue: lookup }], exports: [OUTBOUND_LOOKUP] },
  };
}
