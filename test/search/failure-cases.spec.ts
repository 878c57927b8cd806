import { buildEvalIndex, DEFAULT_RANKING, docsFromEvalServers, loadEvalSet, SearchHit, ToolSearchIndex } from '@app/search';

/**
 * The ways tool search used to fail, each on the committed tool lists of real servers (bench/eval): a request
 * that shares no word with any tool, a server with hundreds of similar tools, tools without descriptions,
 * typos, abbreviations and product words, and near misses between two servers of the same kind.
 */
describe('tool search on real servers: the failure cases', () => {
  const { servers } = loadEvalSet();
  const index = buildEvalIndex(servers);
  const search = (query: string, limit = 10, on: ToolSearchIndex = index): SearchHit[] => on.search(query, { limit, visible: () => true });
  const ids = (hits: SearchHit[]): string[] => hits.map((h) => `${h.doc.serverId}:${h.doc.toolName}`);
  const rankOf = (hits: SearchHit[], id: string): number => ids(hits).indexOf(id) + 1;

  describe('a request that shares no word with the right tool', () => {
    it('still finds the calculator for arithmetic written in numbers and symbols', () => {
      const hits = search('what is 40% of 1250');
      expect(ids(hits)[0]).toBe('calc:math');
    });

    it('answers words no tool has, in any spelling, with a best guess marked low, never an empty list', () => {
      const hits = search('qwzx vbnmk plorf', 5);
      expect(hits).toHaveLength(5);
      expect(hits.every((h) => h.confidence === 'low' && h.score === 0)).toBe(true);
      // the guess is a tool that answers open questions, not an arbitrary one
      expect(hits.some((h) => /ask|search/.test(h.doc.toolName))).toBe(true);
    });

    it('is empty only when the caller may see no tool at all', () => {
      expect(index.search('qwzx vbnmk plorf', { visible: () => false })).toEqual([]);
      expect(index.search('send an email', { visible: { type: 'tenant', tenantId: 'nobody' }, serverIds: ['no-such-server'] })).toEqual([]);
    });
  });

  describe('one server with very many similar tools', () => {
    const microsoft = servers.find((s) => s.id === 'microsoft-365');

    it('uses a real office suite of more than 150 tools', () => {
      expect(microsoft?.tools.length).toBeGreaterThan(150);
    });

    it('does not take every place: other servers with a matching tool get some of the first ten', () => {
      const undiversified = new ToolSearchIndex({ ranking: { ...DEFAULT_RANKING, serverDecay: 1 } });
      for (const [id, docs] of docsFromEvalServers(servers)) undiversified.upsertServerTools(id, docs);
      // without diversification the suite fills the whole list for a request many servers can serve
      expect(new Set(search('reply to a message', 10, undiversified).map((h) => h.doc.serverId))).toEqual(new Set(['microsoft-365']));
      const hits = search('reply to a message');
      expect(hits).toHaveLength(10);
      expect(hits.filter((h) => h.doc.serverId !== 'microsoft-365').length).toBeGreaterThanOrEqual(2);
      expect(ids(hits)).toContain('slack:slack_reply_to_thread');
      // and its best tools stay first
      expect(hits[0].doc.serverId).toBe('microsoft-365');
    });

    it('lets the other calendar into the first five for a calendar request', () => {
      expect(rankOf(search('list my calendar events'), 'google-calendar:list-events')).toBeGreaterThan(0);
      expect(rankOf(search('list my calendar events'), 'google-calendar:list-events')).toBeLessThanOrEqual(5);
    });
  });

  describe('tools with empty descriptions', () => {
    it('uses real tools that have none', () => {
      const wikipedia = servers.find((s) => s.id === 'wikipedia');
      expect(wikipedia?.tools.map((t) => [t.name, t.description ?? ''])).toEqual([
        ['search', ''],
        ['readArticle', ''],
      ]);
    });

    it('finds them by their names and their server', () => {
      expect(ids(search('read the wikipedia article about Alan Turing'))[0]).toBe('wikipedia:readArticle');
      expect(ids(search('search wikipedia for the eiffel tower'))[0]).toBe('wikipedia:search');
    });

    it('finds tools whose descriptions are one word by their names', () => {
      // Stripe's tools with every description cut to its first word
      const stripe = servers.find((s) => s.id === 'stripe');
      if (!stripe) throw new Error('the stripe server is part of the evaluation set');
      const terse = new ToolSearchIndex();
      const docs = docsFromEvalServers([{ ...stripe, tools: stripe.tools.map((t) => ({ ...t, description: (t.description ?? '').split(/\s+/)[0] })) }]);
      for (const [id, d] of docs) terse.upsertServerTools(id, d);
      expect(ids(search('refund a payment', 3, terse))[0]).toBe('stripe:create_refund');
      expect(ids(search('cancel the subscription', 3, terse))[0]).toBe('stripe:cancel_subscription');
    });
  });

  describe('typos, abbreviations and product words', () => {
    it('reads misspelt words as the known words they are one or two edits from', () => {
      expect(ids(search('creat a new repositry on github'))[0]).toBe('github:create_repository');
      expect(rankOf(search('serch my emails for the contract'), 'gmail:search_emails')).toBe(1);
    });

    it('expands abbreviations: PR, k8s', () => {
      expect(ids(search('open a PR for this branch on github'))[0]).toBe('github:create_pull_request');
      const k8s = search('show the k8s deployments', 5);
      expect(k8s.every((h) => h.doc.serverId === 'kubernetes' || h.doc.serverId === 'kubernetes-go')).toBe(true);
    });

    it('knows office words: OOO, out of office, standup', () => {
      expect(ids(search('set my out of office reply'))[0]).toBe('microsoft-365:update-mailbox-settings');
      expect(rankOf(search('OOO auto reply', 5), 'microsoft-365:update-mailbox-settings')).toBeGreaterThan(0);
      const standup = ids(search('schedule a standup every morning', 5));
      expect(standup.some((id) => /create-(calendar-)?events?$|create-online-meeting$/.test(id))).toBe(true);
    });

    it('treats invoice and bill as one thing', () => {
      const invoice = ids(search('invoice the client for march', 5));
      const bill = ids(search('bill the client for march', 5));
      for (const list of [invoice, bill]) expect(list.some((id) => /create_invoice$|create-invoice$/.test(id))).toBe(true);
    });
  });

  describe('near misses between servers: the one the request names wins', () => {
    it.each([
      ['send an email from outlook to Ana', 'microsoft-365:send-mail'],
      ['send an email from gmail to Ana', 'gmail:send_email'],
      ['take a screenshot with puppeteer', 'puppeteer:puppeteer_screenshot'],
      ['take a screenshot in chrome devtools', 'chrome-devtools:take_screenshot'],
      ['create a pull request on github', 'github:create_pull_request'],
      ['create a pull request on bitbucket', 'bitbucket:create_pull_request'],
      ['search the web with exa', 'exa:web_search_exa'],
      ['search the web with brave', 'brave-search:brave_web_search'],
    ])('%s → %s', (query, expected) => {
      expect(ids(search(query, 3))[0]).toBe(expected);
    });
  });

  describe('the action asked for, idioms and arguments', () => {
    it('gives the tool that does what the request opens with the place of its neighbours on the same subject', () => {
      expect(ids(search('delete the old release branch in bitbucket', 3))[0]).toBe('bitbucket:delete_branch');
      expect(ids(search('remove the stale feature flag', 3))[0]).toBe('launchdarkly:delete-feature-flag');
      expect(ids(search('set up a discord webhook for alerts', 3))[0]).toBe('discord:discord_create_webhook');
      // a question reads: it holds back the tools that would change something
      expect(ids(search('what tables are in this airtable base', 3))[0]).toBe('airtable:list_tables');
    });

    it('reads idioms for what they ask: how many, how much money, google …, on my plate, to do list', () => {
      expect(ids(search('how many documents are in the orders collection', 3))[0]).toBe('mongodb:count');
      expect(ids(search('how much money is in our stripe account', 3))[0]).toBe('stripe:retrieve_balance');
      expect(rankOf(search('google what the capital of Australia is', 5), 'brave-search:brave_web_search')).toBeGreaterThan(0);
      expect(search('google what the capital of Australia is', 5).every((h) => h.doc.serverId !== 'google-maps')).toBe(true);
      expect(ids(search("what's on my plate in asana", 3))[0]).toBe('asana:asana_get_my_tasks');
      expect(ids(search('add buy milk to my Microsoft To Do list', 3))[0]).toBe('microsoft-365:create-todo-task');
    });

    it('takes a percentage off for a discount, not for arithmetic', () => {
      expect(ids(search('make a 20% off promo code', 3))[0]).toBe('stripe:create_coupon');
      expect(ids(search('what is 17% of 2450', 3))[0]).toBe('calc:math');
    });

    it('reads an IP address, coordinates and a version in the request as what they are', () => {
      expect(rankOf(search('is 10.0.0.7 inside 10.0.0.0/24', 3), 'calc:ip')).toBeGreaterThan(0);
      expect(ids(search('what address is at 48.8584, 2.2945', 3))[0]).toBe('google-maps:maps_reverse_geocode');
    });
  });

  it('marks a clear hit high', () => {
    const hits = search('take a screenshot with puppeteer');
    expect(hits[0].confidence).toBe('high');
    expect(hits.slice(1).every((h) => h.confidence !== 'high' || h.doc.serverId === 'puppeteer')).toBe(true);
  });
});
