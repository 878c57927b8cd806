import { schemaText } from './fields';
import { tokenize } from './tokenizer';
import type { SearchOptions, ToolDocument } from './tool-document';

/**
 * Plain BM25 (Robertson & Zaragoza, k1 = 1.2, b = 0.75) over one field holding everything a tool says of
 * itself (name, title, description, argument names and descriptions, server name), with the same words and
 * stems as the index but no field weights, synonyms, completions, typo tolerance or boosts: the yardstick
 * the ranking is measured against in the benchmark. Scope filters are ignored (the evaluation sees every tool).
 */
export class Bm25Baseline {
  private readonly docs: ToolDocument[] = [];
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly lengths: number[] = [];
  private totalLength = 0;

  constructor(
    docs: Iterable<ToolDocument>,
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    for (const doc of docs) this.add(doc);
  }

  private add(doc: ToolDocument): void {
    const id = this.docs.length;
    this.docs.push(doc);
    const text = [doc.toolName, doc.title ?? '', doc.description ?? '', schemaText(doc.inputSchema), doc.serverName].join('\n');
    const tokens = tokenize(text);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t.term, (tf.get(t.term) ?? 0) + 1);
    for (const [term, n] of tf) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = []));
      list.push({ doc: id, tf: n });
    }
    this.lengths.push(tokens.length);
    this.totalLength += tokens.length;
  }

  search(query: string, options: Pick<SearchOptions, 'limit'> = {}): { doc: ToolDocument; score: number }[] {
    const n = this.docs.length;
    const avg = this.totalLength / (n || 1);
    const scores = new Map<number, number>();
    for (const term of new Set(tokenize(query).map((t) => t.term))) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const { doc, tf } of list) {
        const norm = tf + this.k1 * (1 - this.b + (this.b * this.lengths[doc]) / avg);
        scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (this.k1 + 1)) / norm);
      }
    }
    return [...scores]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, options.limit ?? 10)
      .map(([doc, score]) => ({ doc: this.docs[doc], score }));
  }
}
