import { EXPANSIONS, SYNONYM_GROUPS, alternativesOf } from './synonyms';
import { splitWords, termOf } from './tokenizer';

const termsOf = (phrase: string): string[] => splitWords(phrase).map(termOf);

describe('the synonym table', () => {
  // Entries are matched as terms: a second form of a word already listed ("logs" beside "log") is never read
  // on its own, and an expansion key that another key stems to is merged with it, whatever it was meant to say.
  it('lists each term once in a group', () => {
    const repeated = SYNONYM_GROUPS.map((group) => {
      const terms = group.flatMap(termsOf);
      return { group: group.join(', '), repeated: terms.filter((t, i) => terms.indexOf(t) !== i) };
    }).filter((g) => g.repeated.length > 0);
    expect(repeated).toEqual([]);
  });

  it('has one expansion per term', () => {
    const byTerm = new Map<string, string[]>();
    for (const key of Object.keys(EXPANSIONS)) byTerm.set(termOf(key), [...(byTerm.get(termOf(key)) ?? []), key]);
    expect([...byTerm.values()].filter((keys) => keys.length > 1)).toEqual([]);
  });

  it('reaches a plural through its singular entry', () => {
    expect(alternativesOf(termOf('prs')).map((a) => a.term)).toEqual(expect.arrayContaining(['pull', termOf('request')]));
    expect(alternativesOf(termOf('logs')).map((a) => a.term)).toContain(termOf('history'));
    const invoice = alternativesOf(termOf('bills')).find((a) => a.term === termOf('invoice'));
    expect(invoice?.weight).toBeGreaterThan(0);
  });
});
