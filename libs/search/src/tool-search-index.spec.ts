import { maySee } from '@app/domain';
import fc from 'fast-check';
import { splitPurpose } from './fields';
import { DEFAULT_RANKING } from './ranking';
import { describeArguments, ToolSearchIndex } from './tool-search-index';
import type { ToolDocument } from './tool-document';

function tool(serverId: string, toolName: string, extra: Partial<ToolDocument> = {}): ToolDocument {
  return {
    serverId,
    serverName: extra.serverName ?? `Server ${serverId}`,
    serverKind: extra.serverKind ?? 'BUILT_IN',
    tenantId: extra.tenantId ?? null,
    toolName,
    ...extra,
  };
}

function names(index: ToolSearchIndex, query: string, options: Partial<Parameters<ToolSearchIndex['search']>[1]> = {}): string[] {
  return index.search(query, { visible: () => true, ...options }).map((h) => `${h.doc.serverId}:${h.doc.toolName}`);
}

/** The results the index is more than a little sure of (a best guess is always "low"). */
function sure(index: ToolSearchIndex, query: string): string[] {
  return index
    .search(query, { visible: () => true })
    .filter((h) => h.confidence !== 'low')
    .map((h) => `${h.doc.serverId}:${h.doc.toolName}`);
}

describe('ToolSearchIndex ranking', () => {
  const index = new ToolSearchIndex();
  index.upsertServerTools('gh', [
    tool('gh', 'create_pull_request', { serverName: 'GitHub', description: 'Create a new pull request in a GitHub repository.' }),
    tool('gh', 'search_issues', { serverName: 'GitHub', description: 'Search for issues across GitHub repositories' }),
    tool('gh', 'list_commits', { serverName: 'GitHub', description: 'Get list of commits of a branch in a GitHub repository' }),
  ]);
  index.upsertServerTools('git', [
    tool('git', 'git_status', { serverName: 'Git', description: 'Shows the working tree status' }),
    tool('git', 'git_log', { serverName: 'Git', description: 'Shows the commit logs' }),
  ]);
  index.upsertServerTools('browser', [
    tool('browser', 'browser_take_screenshot', { serverName: 'Playwright', title: 'Take a screenshot', description: 'Take a screenshot of the current page.' }),
    tool('browser', 'browser_navigate', {
      serverName: 'Playwright',
      description: 'Navigate to a URL',
      inputSchema: { type: 'object', properties: { url: { type: 'string', description: 'The URL to navigate to' } } },
    }),
  ]);
  index.upsertServerTools('maps', [
    tool('maps', 'maps_directions', {
      serverName: 'Google Maps',
      description: 'Get directions between two points',
      inputSchema: {
        type: 'object',
        properties: {
          origin: { type: 'string' },
          options: {
            type: 'object',
            properties: { mode: { type: 'string', description: 'Travel mode', enum: ['driving', 'walking', 'bicycling'] } },
          },
        },
      },
    }),
  ]);

  it('finds a tool by the words of its name and description', () => {
    expect(names(index, 'open a pull request')[0]).toBe('gh:create_pull_request');
  });

  it('matches synonyms of tool-intent words', () => {
    expect(names(index, 'find tickets')[0]).toBe('gh:search_issues');
  });

  it('expands abbreviations', () => {
    expect(names(index, 'new pr')[0]).toBe('gh:create_pull_request');
  });

  it('ranks a tool whose exact name was typed first', () => {
    expect(names(index, 'git_status')[0]).toBe('git:git_status');
    expect(names(index, 'git log')[0]).toBe('git:git_log');
  });

  it('completes the word being typed', () => {
    expect(names(index, 'screensh')[0]).toBe('browser:browser_take_screenshot');
    // a finished word is not completed into others: an unknown one is read as misspelt ("screen" is two
    // edits away), which the confidence shows
    expect(index.search('screensh ', { visible: () => true })[0]).toMatchObject({ doc: { toolName: 'browser_take_screenshot' }, confidence: 'medium' });
  });

  it('searches argument names, nested argument descriptions and enum values', () => {
    expect(names(index, 'bicycling')[0]).toBe('maps:maps_directions');
    expect(names(index, 'travel mode')[0]).toBe('maps:maps_directions');
  });

  it('takes a URL in the query for what it is', () => {
    expect(describeArguments('open https://example.com/a?b=1 now')).toBe('open  url  now');
    expect(names(index, 'go to https://example.com/docs')[0]).toBe('browser:browser_navigate');
  });

  it('answers a query of stop words with a best guess marked low, and nothing for an empty index', () => {
    const guess = index.search('what is the', { visible: () => true });
    expect(guess.length).toBeGreaterThan(0);
    expect(guess.every((h) => h.confidence === 'low' && h.score === 0)).toBe(true);
    expect(new ToolSearchIndex().search('anything', { visible: () => true })).toEqual([]);
  });

  it('returns at most limit results, 10 by default, at most 100', () => {
    const big = new ToolSearchIndex();
    big.upsertServerTools(
      's',
      Array.from({ length: 150 }, (_, i) => tool('s', `report_${i}`, { description: 'Make a report' })),
    );
    expect(big.search('report', { visible: () => true })).toHaveLength(10);
    expect(big.search('report', { visible: () => true, limit: 3 })).toHaveLength(3);
    expect(big.search('report', { visible: () => true, limit: 1000 })).toHaveLength(100);
    expect(big.search('report', { visible: () => true, limit: 0 })).toHaveLength(1);
  });

  it('breaks ties by server id, then tool name, whatever the insertion order', () => {
    const ties = new ToolSearchIndex();
    for (const id of ['c', 'a', 'b']) ties.upsertServerTools(id, [tool(id, 'send_invoice', { serverName: 'Billing' })]);
    ties.upsertServerTools('a', [tool('a', 'send_invoice', { serverName: 'Billing' }), tool('a', 'send_invoice2', { serverName: 'Billing' })]);
    const hits = ties.search('send invoice', { visible: () => true });
    expect(hits.map((h) => h.doc.serverId)).toEqual(['a', 'b', 'c', 'a']);
    expect(hits[0].score).toBe(hits[1].score);
  });

  it('refuses a search without a visibility', () => {
    expect(() => index.search('status', {} as never)).toThrow(TypeError);
  });
});

describe('ToolSearchIndex actions and server context', () => {
  it('favours the tool that does what the request opens with over its neighbours on the same subject', () => {
    const index = new ToolSearchIndex();
    const branch = 'A branch of the repository.';
    index.upsertServerTools('vcs', [
      tool('vcs', 'create_branch', { description: `Creates a branch. ${branch}` }),
      tool('vcs', 'delete_branch', { description: `Deletes a branch. ${branch}` }),
      tool('vcs', 'list_branches', { description: `Lists the branches. ${branch}` }),
      tool('vcs', 'branch_protection', { description: `The rules that protect a branch. ${branch}` }),
    ]);
    expect(names(index, 'remove the old branch')[0]).toBe('vcs:delete_branch');
    expect(names(index, 'make a branch for the fix')[0]).toBe('vcs:create_branch');
    expect(names(index, 'show every branch')[0]).toBe('vcs:list_branches');
    // no verb first: nothing is favoured or held back for its action
    const neutral = new ToolSearchIndex({ ranking: { ...DEFAULT_RANKING, actionAgree: 1, actionConflict: 1 } });
    neutral.upsertServerTools('vcs', index.search('branch', { visible: () => true }).map((h) => h.doc));
    for (const q of ['branch rules', 'the branches']) expect(names(index, q)).toEqual(names(neutral, q));
  });

  it("reads a server's instructions as context for its tools, below what the tools say of themselves", () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('books', [
      tool('books', 'list_entries', { serverName: 'Ledger', description: 'List the entries.', serverInstructions: 'Bookkeeping for small firms: invoices, payroll and VAT returns.' }),
    ]);
    index.upsertServerTools('notes', [tool('notes', 'list_entries', { serverName: 'Notes', description: 'List the entries.' })]);
    index.upsertServerTools('tax', [tool('tax', 'file_vat_return', { serverName: 'Tax', description: 'File a VAT return.' })]);
    expect(names(index, 'list the payroll entries')[0]).toBe('books:list_entries');
    expect(names(index, 'file the vat return')[0]).toBe('tax:file_vat_return');
  });

  it('finds the purpose of a description laid out in headed sections', () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('crm', [
      tool('crm', 'crm-batch-update', {
        description: '\n  🛡️ Guardrails:\n    1. This tool modifies data.\n\n  🎯 Purpose:\n    1. Updates several records at once.\n',
      }),
      tool('crm', 'crm-guard', { description: 'Guardrails for data that this tool modifies.' }),
    ]);
    const [hit] = index.search('update several records', { visible: () => true });
    expect(hit.doc.toolName).toBe('crm-batch-update');
  });

  it('splits a description after the sentence that says what the tool is for', () => {
    expect(splitPurpose('Creates a branch. Needs write access.')).toEqual(['Creates a branch.', ' Needs write access.']);
    expect(splitPurpose('[beta] Delete a message object.')[0]).toBe('Delete a message object.');
    expect(splitPurpose('Usage:\n  - Lists the open jobs.\n')[0]).toBe('Lists the open jobs.');
    expect(splitPurpose('📦 Returns:\n  1. A list.\n🎯 Purpose\n  1. Retrieves the objects of a type.\n')[0]).toBe('Retrieves the objects of a type.');
    // a colon inside a sentence is no heading
    expect(splitPurpose('Search: find items by name.')[0]).toBe('Search: find items by name.');
  });
});

describe('ToolSearchIndex scoping', () => {
  const index = new ToolSearchIndex();
  index.upsertServerTools('platform', [tool('platform', 'send_email', { serverKind: 'BUILT_IN', description: 'Send an email' })]);
  index.upsertServerTools('acme-mail', [
    tool('acme-mail', 'send_email', { serverKind: 'CUSTOM', tenantId: 'acme', description: 'Send an email through Acme mail' }),
  ]);
  index.upsertServerTools('globex-mail', [
    tool('globex-mail', 'send_email', { serverKind: 'INTEGRATION', tenantId: 'globex', description: 'Send an email email email' }),
  ]);

  it('shows a tenant the platform tools and its own, never another tenant’s', () => {
    const hits = names(index, 'send email', { visible: { type: 'tenant', tenantId: 'acme' } });
    expect(hits.sort()).toEqual(['acme-mail:send_email', 'platform:send_email']);
    const other = names(index, 'email', { visible: { type: 'tenant', tenantId: 'globex' }, limit: 100 });
    expect(other).not.toContain('acme-mail:send_email');
  });

  it('shows a tenant without servers of its own only the platform tools, and the administrator every tool', () => {
    expect(names(index, 'send email', { visible: { type: 'tenant', tenantId: 'nobody' } })).toEqual(['platform:send_email']);
    expect(names(index, 'send email', { visible: { type: 'admin' }, limit: 100 }).sort()).toEqual(['acme-mail:send_email', 'globex-mail:send_email', 'platform:send_email']);
  });

  it('refuses a search that does not say who is asking', () => {
    expect(() => index.search('email', { visible: { tenantId: 'acme' } as never })).toThrow(TypeError);
  });

  it('applies a visibility predicate', () => {
    expect(names(index, 'email', { visible: (d) => d.serverId === 'globex-mail' })).toEqual(['globex-mail:send_email']);
  });

  it('filters by server kind and by server id, together with the scope', () => {
    expect(names(index, 'email', { kinds: ['CUSTOM', 'INTEGRATION'] }).sort()).toEqual([
      'acme-mail:send_email',
      'globex-mail:send_email',
    ]);
    expect(names(index, 'email', { kinds: ['INTEGRATION'], visible: { type: 'tenant', tenantId: 'acme' } })).toEqual([]);
    expect(names(index, 'email', { serverIds: ['platform', 'globex-mail'], visible: { type: 'tenant', tenantId: 'acme' } })).toEqual([
      'platform:send_email',
    ]);
  });

  it('still fills the limit when better matches are hidden from the caller', () => {
    const crowded = new ToolSearchIndex();
    for (let i = 0; i < 50; i++) {
      crowded.upsertServerTools(`t${i}`, [tool(`t${i}`, 'deploy_app', { tenantId: 'other', description: 'Deploy the app deploy deploy' })]);
    }
    crowded.upsertServerTools('mine', [tool('mine', 'deploy', { tenantId: 'me', description: 'Start a rollout' })]);
    expect(names(crowded, 'deploy app', { visible: { type: 'tenant', tenantId: 'me' }, limit: 5 })).toEqual(['mine:deploy']);
  });
});

describe('ToolSearchIndex scoping through changes', () => {
  const tenants = ['acme', 'globex', 'initech', null] as const;
  const words = ['invoice', 'order', 'email', 'deploy', 'report'];
  // servers that change hands between tenants and the platform, lose their tools and come back, with
  // compactions on the way; each search of a viewer must be what filtering every tool by maySee gives
  const change = fc.record({
    server: fc.integer({ min: 0, max: 39 }),
    owner: fc.constantFrom(...tenants),
    tools: fc.array(fc.constantFrom(...words), { maxLength: 6 }),
  });

  it('answers a viewer exactly as a filter over every tool would', () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 120 }), fc.constantFrom('acme', 'globex', 'nobody'), (changes, tenantId) => {
        const index = new ToolSearchIndex();
        changes.forEach((c, n) => {
          const id = `s${c.server}`;
          index.upsertServerTools(
            id,
            c.tools.map((w, i) => tool(id, `${w}_${i}`, { tenantId: c.owner, description: `Handles the ${w} of ${c.owner ?? 'everyone'}` })),
          );
          if (n % 40 === 39) index.compact();
        });
        for (const viewer of [{ type: 'tenant' as const, tenantId, keyId: 'k' }, { type: 'admin' as const, keyId: 'admin' as const }]) {
          for (const q of [...words, 'handles the email', 'acme order']) {
            const scoped = index.search(q, { visible: viewer, limit: 50 });
            const filtered = index.search(q, { visible: (doc) => maySee(viewer, doc.tenantId), limit: 50 });
            expect(scoped).toEqual(filtered);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('ToolSearchIndex updates', () => {
  it('replaces all tools of a server at once', () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('s', [tool('s', 'old_one'), tool('s', 'old_two')]);
    index.upsertServerTools('other', [tool('other', 'old_three')]);
    index.upsertServerTools('s', [tool('s', 'new_one'), tool('s', 'new_two'), tool('s', 'new_three')]);
    expect(names(index, 'old', { limit: 100 })).toEqual(['other:old_three']);
    expect(names(index, 'new', { limit: 100 }).sort()).toEqual(['s:new_one', 's:new_three', 's:new_two']);
    expect(index.size).toBe(4);
    expect(index.serverCount).toBe(2);
  });

  it('leaves the old tools in place when the new list is refused', () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('s', [tool('s', 'kept_tool')]);
    expect(() => index.upsertServerTools('s', [tool('s', 'fresh_tool'), tool('x', 'stray_tool')])).toThrow(/belongs to server x/);
    expect(names(index, 'kept')).toEqual(['s:kept_tool']);
    expect(sure(index, 'fresh')).toEqual([]);
    expect(names(index, 'fresh')).toEqual(['s:kept_tool']);
  });

  it('removes a server, and an empty tool list removes it too', () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('a', [tool('a', 'alpha_tool')]);
    index.upsertServerTools('b', [tool('b', 'beta_tool')]);
    index.removeServer('a');
    index.removeServer('never-indexed');
    expect(names(index, 'alpha')).toEqual(['b:beta_tool']);
    expect(sure(index, 'alpha')).toEqual([]);
    expect(index.hasServer('a')).toBe(false);
    index.upsertServerTools('b', []);
    expect(names(index, 'beta')).toEqual([]);
    expect(index.size).toBe(0);
    expect(index.serverCount).toBe(0);
  });

  it('gives the same answers after many replacements and a compaction as a fresh index', () => {
    const churned = new ToolSearchIndex();
    const fresh = new ToolSearchIndex();
    const docsOf = (s: number, round: number): ToolDocument[] =>
      Array.from({ length: 20 }, (_, i) =>
        tool(`s${s}`, `tool_${(i + round) % 23}`, { description: `Handles invoice ${i % 5} and order ${round % 3} records` }),
      );
    for (let round = 0; round < 8; round++) for (let s = 0; s < 100; s++) churned.upsertServerTools(`s${s}`, docsOf(s, round));
    for (let s = 0; s < 100; s++) fresh.upsertServerTools(`s${s}`, docsOf(s, 7));
    // compactions ran on the way: dead slots never reach a quarter of the index
    expect(churned.stats().deadSlots).toBeLessThan(churned.stats().tools * 0.34);
    churned.compact();
    expect(churned.stats()).toEqual(fresh.stats());
    for (const q of ['invoice', 'order records', 'tool_3', 'handles']) {
      expect(churned.search(q, { visible: () => true, limit: 20 })).toEqual(fresh.search(q, { visible: () => true, limit: 20 }));
    }
  });

  it('never shows a removed tool, before or after a compaction', () => {
    const index = new ToolSearchIndex();
    for (let s = 0; s < 60; s++) index.upsertServerTools(`s${s}`, Array.from({ length: 20 }, (_, i) => tool(`s${s}`, `widget_${i}`)));
    for (let s = 0; s < 59; s++) index.removeServer(`s${s}`);
    const hits = index.search('widget', { visible: () => true, limit: 100 });
    expect(hits).toHaveLength(20);
    expect(new Set(hits.map((h) => h.doc.serverId))).toEqual(new Set(['s59']));
  });
});

describe('ToolSearchIndex completion', () => {
  it('completes words of tools indexed after an earlier completion', () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('a', [tool('a', 'archive_mailbox')]);
    expect(names(index, 'arch')).toEqual(['a:archive_mailbox']);
    index.upsertServerTools('b', [tool('b', 'architect_plan')]);
    expect(names(index, 'archit')).toEqual(['b:architect_plan']);
    expect(names(index, 'arch').sort()).toEqual(['a:archive_mailbox', 'b:architect_plan']);
  });

  it('does not complete words shorter than three letters', () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('a', [tool('a', 'archive_mailbox')]);
    expect(sure(index, 'ar')).toEqual([]);
  });

  it('forgets the words of removed tools', () => {
    const index = new ToolSearchIndex();
    index.upsertServerTools('a', [tool('a', 'zebra_feed')]);
    index.removeServer('a');
    index.compact();
    expect(index.stats()).toEqual({ tools: 0, servers: 0, terms: 0, postings: 0, deadSlots: 0 });
    expect(names(index, 'zeb')).toEqual([]);
  });
});

describe('ToolSearchIndex retain', () => {
  it('indexes the whole document but keeps and returns only what retain gives', () => {
    const index = new ToolSearchIndex({ retain: ({ inputSchema: _schema, description: _description, ...rest }) => rest });
    index.upsertServerTools('s', [
      tool('s', 'geocode', {
        description: 'Convert an address into coordinates',
        inputSchema: { type: 'object', properties: { address: { type: 'string', description: 'Street address' } } },
      }),
    ]);
    const [hit] = index.search('street coordinates', { visible: () => true });
    expect(hit.doc).toEqual({ serverId: 's', serverName: 'Server s', serverKind: 'BUILT_IN', tenantId: null, toolName: 'geocode' });
  });
});
