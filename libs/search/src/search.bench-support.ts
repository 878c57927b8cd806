import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { docsFromEvalServers, EvalQuery, EvalServer } from './evaluation';
import { ToolSearchIndex, ToolSearchIndexOptions } from './tool-search-index';
import type { ToolDocument, Visibility } from './tool-document';

/*
 * Support for the search benchmark (`npm run bench`): a synthetic registry of any size, built from the real
 * servers of the evaluation set, and a latency probe. Nothing here runs in the product.
 */

const EVAL_DIR = join('bench', 'eval');

/** Finds bench/eval from the working directory or from this file, whichever is inside the repository. */
export function findEvalDir(): string {
  for (const start of [process.cwd(), __dirname]) {
    let dir = resolve(start);
    for (;;) {
      const candidate = join(dir, EVAL_DIR);
      if (existsSync(join(candidate, 'servers.json'))) return candidate;
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error(`cannot find ${EVAL_DIR}/servers.json above ${process.cwd()} or ${__dirname}`);
}

/**
 * The evaluation set: real servers' tool lists (servers.json, the first 25, and servers/*.json, one file per
 * server, written by collect.js) and the requests people would make of an agent. The queries of
 * queries.json and queries-train.json are the training part (what the ranking was tuned on);
 * queries-holdout.json was written before any tuning on the grown set and is never used to change it.
 */
export function loadEvalSet(dir: string = findEvalDir()): { servers: EvalServer[]; queries: EvalQuery[] } {
  const servers = (JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8')) as { servers: EvalServer[] }).servers;
  const more = join(dir, 'servers');
  if (existsSync(more)) {
    for (const file of readdirSync(more).filter((f) => f.endsWith('.json')).sort()) {
      servers.push(JSON.parse(readFileSync(join(more, file), 'utf8')) as EvalServer);
    }
  }
  const queries: EvalQuery[] = [];
  for (const [file, split] of QUERY_FILES) {
    if (!existsSync(join(dir, file))) continue;
    for (const q of (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { queries: EvalQuery[] }).queries) queries.push({ ...q, split });
  }
  return { servers, queries };
}

const QUERY_FILES: readonly (readonly [file: string, split: 'train' | 'holdout'])[] = [
  ['queries.json', 'train'],
  ['queries-train.json', 'train'],
  ['queries-holdout.json', 'holdout'],
];

/**
 * The servers the synthetic registry is made from by default: the first 25 of the evaluation set
 * (servers.json), as the benchmark's seeded registry has always been, so that its sizes, load times and
 * memory stay comparable from run to run as the evaluation set grows.
 */
export function loadTemplateServers(dir: string = findEvalDir()): EvalServer[] {
  return (JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8')) as { servers: EvalServer[] }).servers;
}

/** An index over the evaluation servers, all of them the platform's. */
export function buildEvalIndex(servers: readonly EvalServer[] = loadEvalSet().servers): ToolSearchIndex {
  const index = new ToolSearchIndex();
  for (const [serverId, docs] of docsFromEvalServers(servers)) index.upsertServerTools(serverId, docs);
  return index;
}

/** Deterministic pseudo-random numbers (mulberry32), so every run builds the same corpus. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Business nouns that real tool catalogues are full of, to vary the real tools' subjects. */
const NOUNS = (
  'account address agent alert analytics answer api app appointment approval archive article asset attachment ' +
  'audience audit backup balance batch bill board booking branch brand budget build bundle calendar call ' +
  'campaign card cart case catalog category certificate change channel charge chart checkout claim client ' +
  'cluster code collection comment commit company component config connection contact container content ' +
  'contract conversation coupon course credential credit customer dashboard database dataset deal delivery ' +
  'deployment device discount dispute document domain draft employee endpoint entry environment estimate ' +
  'event expense experiment export feature feed field file filter folder form forecast fund funnel gateway ' +
  'goal grant group guest incident integration inventory invoice issue item job journal key label lead ledger ' +
  'license list listing location log loyalty machine mailbox meeting member membership message metric ' +
  'milestone model monitor note notification offer opportunity order organization package page partner ' +
  'payment payout permission pipeline plan playlist policy portfolio post price product profile project ' +
  'promotion property queue quote receipt recipe record refund region release report repository request ' +
  'reservation resource review role room rule sale schedule schema script secret segment sequence server ' +
  'service session shipment shift site sku snapshot space sprint stage statement store stream subscription ' +
  'supplier survey table tag task tax team template tenant test thread ticket timesheet token topic ' +
  'transaction transfer trip user variable vendor video volume voucher warehouse webhook widget workflow ' +
  'workspace'
).split(' ');

/** Ways a description names what it acts on, so that no filler word ends up in every tool. */
const PHRASES: readonly ((noun: string, other: string, product: string) => string)[] = [
  (n, o, p) => `Works on ${n} and ${o} records in ${p}.`,
  (n, o, p) => `Scoped to the ${n} of a ${o} in ${p}.`,
  (n, o, p) => `Each ${n} belongs to one ${o}; see ${p} for limits.`,
  (n, o, p) => `${p} keeps the ${n} history for every ${o}.`,
  (n, o, p) => `Requires a ${n} identifier from ${p}, and optionally a ${o}.`,
  (n, o) => `Useful when the ${n} or its ${o} changed recently.`,
  (n, o, p) => `Applies to ${p} ${n} objects linked to a ${o}.`,
  (n, o) => `Returns the ${n} together with its ${o}.`,
];

const SYLLABLES = 'ka zo ri vel tan mor bex lu qui sar dor fen gal hy jun kor lem nax pri tov ul wex yar zen'.split(' ');

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)];
}

function productName(rnd: () => number): string {
  const n = 2 + Math.floor(rnd() * 2);
  let name = '';
  for (let i = 0; i < n; i++) name += pick(rnd, SYLLABLES);
  return name[0].toUpperCase() + name.slice(1);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A registry of `n` tools on servers of about 20 tools each. Every tool is a real tool of the evaluation
 * set, renamed around a business noun and a made-up product name, with a description and one argument of
 * its own: the vocabulary grows with the corpus the way a real registry's does (every product brings its
 * own name and nouns), and every tool is a separate object, as tools fetched from servers would be.
 * A third of the servers are the platform's, the rest belong to 200 tenants.
 */
export function buildSyntheticCorpus(n: number, seed = 42, servers?: readonly EvalServer[]): Map<string, ToolDocument[]> {
  const seedServers = servers ?? loadTemplateServers();
  const templates = [...docsFromEvalServers(seedServers).values()].filter((docs) => docs.length > 0);
  const rnd = random(seed);
  const out = new Map<string, ToolDocument[]>();
  let made = 0;
  for (let s = 0; made < n; s++) {
    const template = pick(rnd, templates);
    const product = productName(rnd);
    const domain = pick(rnd, NOUNS);
    const serverId = `srv-${s.toString(36).padStart(5, '0')}`;
    const serverName = `${product} ${domain[0].toUpperCase()}${domain.slice(1)}`;
    const tenantId = rnd() < 1 / 3 ? null : `tenant-${Math.floor(rnd() * 200)}`;
    const serverKind = tenantId === null ? template[0].serverKind : rnd() < 0.5 ? 'CUSTOM' : 'INTEGRATION';
    const count = Math.min(n - made, 10 + Math.floor(rnd() * 21));
    const docs: ToolDocument[] = [];
    for (let i = 0; i < count; i++) {
      const t = template[i % template.length];
      const noun = pick(rnd, NOUNS);
      const other = pick(rnd, NOUNS);
      const parts = t.toolName.split(/[_\-.]/);
      if (rnd() < 0.6 && parts.length > 1) parts[parts.length - 1] = noun;
      if (rnd() < 0.3) parts.unshift(product.toLowerCase());
      if (i >= template.length) parts.push(other);
      const properties = isRecord(t.inputSchema) && isRecord(t.inputSchema.properties) ? t.inputSchema.properties : {};
      docs.push({
        serverId,
        serverName,
        serverKind,
        tenantId,
        toolName: parts.join('_'),
        title: t.title,
        description: `${t.description ?? ''} ${pick(rnd, PHRASES)(noun, other, `${product} ${domain}`)}`,
        inputSchema: {
          ...(isRecord(t.inputSchema) ? t.inputSchema : { type: 'object' }),
          properties: { ...properties, [`${noun}_id`]: { type: 'string', description: `Identifier of the ${noun} in ${product}` } },
        },
        annotations: t.annotations,
      });
    }
    out.set(serverId, docs);
    made += count;
  }
  return out;
}

/** An index over `buildSyntheticCorpus(n)`. */
export function buildSyntheticIndex(
  n: number,
  seed = 42,
  servers?: readonly EvalServer[],
  options: ToolSearchIndexOptions = {},
): ToolSearchIndex {
  const index = new ToolSearchIndex(options);
  for (const [serverId, docs] of buildSyntheticCorpus(n, seed, servers)) index.upsertServerTools(serverId, docs);
  return index;
}

export interface LatencyQuery {
  readonly query: string;
  readonly visible?: Visibility;
}

export interface LatencyReport {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
}

/**
 * Runs every query `iterations` times (after one untimed warm-up round) and reports the latency of one
 * search call. Queries without a visibility search as tenant "tenant-7" would: platform tools plus its own.
 */
export function measureQueryLatency(
  index: ToolSearchIndex,
  queries: readonly (string | LatencyQuery)[],
  iterations = 10,
  limit = 10,
): LatencyReport {
  const list: LatencyQuery[] = queries.map((q) => (typeof q === 'string' ? { query: q } : q));
  const scope: Visibility = { type: 'tenant', tenantId: 'tenant-7' };
  for (const q of list) index.search(q.query, { limit, visible: q.visible ?? scope });
  const samples: number[] = [];
  for (let it = 0; it < iterations; it++) {
    for (const q of list) {
      const start = process.hrtime.bigint();
      index.search(q.query, { limit, visible: q.visible ?? scope });
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  samples.sort((a, b) => a - b);
  const at = (p: number): number => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))] ?? 0;
  const sum = samples.reduce((a, b) => a + b, 0);
  return {
    samples: samples.length,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    meanMs: round(sum / (samples.length || 1)),
    maxMs: round(samples[samples.length - 1] ?? 0),
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
