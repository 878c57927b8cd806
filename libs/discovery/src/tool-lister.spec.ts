import { McpConnector, McpFailure, McpFailureCode, McpSession } from '@app/mcp';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListPromptsRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { listItems } from './item-lister';
import { DEFAULT_LISTING_LIMITS, listAllTools, ListingContext, ListingLimits } from './tool-lister';

type Page = { tools: unknown[]; nextCursor?: string };

/** A real MCP server in this process whose tools/list answers `pages(cursor)`, reached through the connector. */
async function serverListing(pages: (cursor: string | undefined) => Page, capabilities: Record<string, unknown> = { tools: {} }): Promise<McpSession> {
  return new McpConnector().connect(
    {
      transport: 'in-process',
      name: 'lister-fixture',
      secrets: [],
      definition: {
        title: 'lister fixture',
        description: 'pages on demand',
        create: () => {
          const server = new Server({ name: 'lister-fixture', version: '1.0.0' }, { capabilities });
          server.setRequestHandler(ListToolsRequestSchema, async (req) => pages(req.params?.cursor) as never);
          if (capabilities.prompts) {
            server.setRequestHandler(ListPromptsRequestSchema, async (req) =>
              req.params?.cursor ? { prompts: [{ name: 'p3' }] } : { prompts: [{ name: 'p1' }, { name: 'p2' }], nextCursor: 'more' },
            );
          }
          // The connector only needs connect/close, which the low-level server has too.
          return server as unknown as McpServer;
        },
      },
    },
    { signal: new AbortController().signal },
  );
}

function ctx(limits: Partial<ListingLimits> = {}, phases: string[] = []): ListingContext {
  return { signal: new AbortController().signal, timeoutMs: 5000, limits: { ...DEFAULT_LISTING_LIMITS, ...limits }, onPhase: (p) => phases.push(p) };
}

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

describe('listing every tool of a server', () => {
  const open: McpSession[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const session = async (pages: (cursor: string | undefined) => Page, caps?: Record<string, unknown>) => {
    const s = await serverListing(pages, caps);
    open.push(s);
    return s;
  };

  it('follows nextCursor through every page, in order, saying which page it is on', async () => {
    const s = await session((cursor) => {
      const n = cursor ? Number(cursor) : 0;
      return { tools: [tool(`t${n}a`), tool(`t${n}b`)], ...(n < 3 ? { nextCursor: String(n + 1) } : {}) };
    });
    const phases: string[] = [];
    const listing = await listAllTools(s, ctx({}, phases));
    expect(listing.tools.map((t) => t.name)).toEqual(['t0a', 't0b', 't1a', 't1b', 't2a', 't2b', 't3a', 't3b']);
    expect(listing.pages).toBe(4);
    expect(phases).toEqual(['tools/list', 'tools/list page 2', 'tools/list page 3', 'tools/list page 4']);
  });

  it('keeps the valid tools of a page that also holds malformed ones', async () => {
    const s = await session(() => ({ tools: [tool('ok1'), { name: 42 }, { name: 'no_schema' }, tool('ok2')] }));
    const listing = await listAllTools(s, ctx());
    expect(listing.tools.map((t) => t.name)).toEqual(['ok1', 'ok2']);
    expect(listing.dropped.map((d) => d.index)).toEqual([1, 2]);
  });

  it('stops at a cursor the server already gave (a listing that would never end)', async () => {
    const s = await session((cursor) => ({ tools: [tool(`t${cursor ?? 0}`)], nextCursor: cursor === 'b' ? 'a' : cursor === 'a' ? 'b' : 'a' }));
    await expect(listAllTools(s, ctx())).rejects.toMatchObject({ code: McpFailureCode.ProtocolViolation, message: expect.stringContaining('repeats the cursor') });
  });

  it('stops at the page bound and at the tool bound, naming the bound', async () => {
    const endless = await session((cursor) => ({ tools: [tool(`t${cursor ?? 0}`)], nextCursor: String(Number(cursor ?? 0) + 1) }));
    await expect(listAllTools(endless, ctx({ maxPages: 5 }))).rejects.toMatchObject({
      code: McpFailureCode.LimitExceeded,
      message: "the server's tools/list has more than 5 pages, the most the registry reads",
    });
    const wide = await session(() => ({ tools: Array.from({ length: 30 }, (_, i) => tool(`w${i}`)) }));
    const err = (await listAllTools(wide, ctx({ maxTools: 20 })).catch((e: unknown) => e)) as McpFailure;
    expect(err).toBeInstanceOf(McpFailure);
    expect(err.message).toMatch(/lists more than 20 tools/);
  });

  it('lists the items of a declared list across its pages, and does not ask for an undeclared one', async () => {
    const s = await session(() => ({ tools: [] }), { tools: {}, prompts: {} });
    const signal = new AbortController().signal;
    const listings = await listItems(s, { ...ctx(), discoverySignal: signal, explain: (err) => String(err) });
    expect(listings.prompts?.map((p) => p.key)).toEqual(['p1', 'p2', 'p3']);
    // Not declared: never asked (the server would answer method-not-found), so unknown rather than a failure.
    expect([listings.resources, listings.resourceTemplates, listings.errors]).toEqual([null, null, null]);
  });
});
