import { McpConnector, McpSession } from '@app/mcp';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListPromptsRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ItemListingContext, listItems } from './item-lister';
import { DEFAULT_LISTING_LIMITS, ListingLimits } from './tool-lister';

type Answer = (cursor: string | undefined) => Record<string, unknown>;

/** A real MCP server in this process declaring resources and prompts, whose lists answer as given. */
function serverWith(resources: Answer, prompts: Answer = () => ({ prompts: [] })): Promise<McpSession> {
  return new McpConnector().connect(
    {
      transport: 'in-process',
      name: 'item-lister-fixture',
      secrets: [],
      definition: {
        title: 'item lister fixture',
        description: 'lists on demand',
        create: () => {
          const server = new Server({ name: 'item-lister-fixture', version: '1.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
          server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
          server.setRequestHandler(ListResourcesRequestSchema, async (req) => resources(req.params?.cursor) as never);
          server.setRequestHandler(ListPromptsRequestSchema, async (req) => prompts(req.params?.cursor) as never);
          return server as unknown as McpServer;
        },
      },
    },
    { signal: new AbortController().signal },
  );
}

function ctx(limits: Partial<ListingLimits> = {}): ItemListingContext {
  const signal = new AbortController().signal;
  return {
    signal,
    discoverySignal: signal,
    timeoutMs: 5000,
    limits: { ...DEFAULT_LISTING_LIMITS, ...limits },
    onPhase: () => undefined,
    explain: (err) => (err instanceof Error ? err.message : String(err)),
  };
}

const resource = (n: number) => ({ uri: `r://${n}`, name: `r${n}` });

describe('listing resources, templates and prompts within bounds', () => {
  const open: McpSession[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const session = async (resources: Answer, prompts?: Answer) => {
    const s = await serverWith(resources, prompts);
    open.push(s);
    return s;
  };

  it('keeps what it read of a list with more pages than the bound, and says why; the other lists are read', async () => {
    const s = await session(
      (cursor) => ({ resources: [resource(Number(cursor ?? 0))], nextCursor: String(Number(cursor ?? 0) + 1) }),
      () => ({ prompts: [{ name: 'p' }] }),
    );
    const listings = await listItems(s, ctx({ maxPages: 3 }));
    expect(listings.resources?.map((r) => r.key)).toEqual(['r://0', 'r://1', 'r://2']);
    expect(listings.errors?.['resources/list']).toMatch(/more than 3 pages/);
    // The server knows no resources/templates/list: it has no templates, and that is no error.
    expect(listings.resourceTemplates).toEqual([]);
    expect(listings.prompts?.map((p) => p.key)).toEqual(['p']);
    expect(Object.keys(listings.errors ?? {})).toEqual(['resources/list']);
  });

  it('stops at a cursor it has seen (a loop), keeping the pages before it', async () => {
    const s = await session((cursor) => ({ resources: [resource(cursor ? 1 : 0)], nextCursor: 'again' }));
    const listings = await listItems(s, ctx());
    expect(listings.resources?.map((r) => r.key)).toEqual(['r://0', 'r://1']);
    expect(listings.errors?.['resources/list']).toMatch(/repeats the cursor of an earlier page/);
  });

  it('keeps at most maxItems of a list, and an unknown list (null) when the first page fails', async () => {
    const s = await session(
      () => ({ resources: Array.from({ length: 7 }, (_, i) => resource(i)) }),
      () => {
        throw new McpError(-32603, 'prompt store down');
      },
    );
    const listings = await listItems(s, ctx({ maxItems: 5 }));
    expect(listings.resources).toHaveLength(5);
    expect(listings.errors?.['resources/list']).toBe('the server lists more than 5 resources, the most the registry keeps for one server; the first 5 are kept');
    expect(listings.prompts).toBeNull();
    expect(listings.errors?.['prompts/list']).toContain('prompt store down');
  });

  it('leaves out entries that are not objects, lack their key, repeat one or carry control characters in it, counting them', async () => {
    const s = await session(() => ({ resources: [resource(1), 'text', { name: 'no uri' }, resource(1), { uri: 'r://\u0007bell' }, resource(2)] }));
    const listings = await listItems(s, ctx());
    expect(listings.resources?.map((r) => r.key)).toEqual(['r://1', 'r://2']);
    expect(listings.errors?.['resources/list']).toBe('4 of the listed resources were left out (the first: resources[1] is not an object)');
  });

  it('throws when the discovery itself ran out of time, instead of recording a list failure', async () => {
    const s = await session(() => new Promise(() => undefined) as never);
    const deadline = new AbortController();
    const c = { ...ctx(), signal: deadline.signal, discoverySignal: deadline.signal };
    const listing = listItems(s, c);
    deadline.abort(new Error('discovery deadline'));
    await expect(listing).rejects.toThrow();
  });
});
