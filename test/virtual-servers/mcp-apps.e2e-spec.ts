import { registerAndDiscover } from '../llm/helpers';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { sdk1Client, sdk2Client } from '../support/mcp-clients';
import { waitFor } from '../support/servers';
import { makeTenant, TenantKey } from '../support/tenants';

const UI_URI = 'ui://weather/forecast.html';
const HTML = '<!doctype html><title>Forecast</title><p>Sunny</p>';

/** An MCP App: a tool whose UI is a ui:// resource the host reads and shows. */
function startWeatherApp(): Promise<RawServer> {
  return startRawServer({
    name: 'weather-app',
    capabilities: { tools: {}, resources: {} },
    onToolsList: () => ({ result: { tools: [{ ...sampleTool('forecast'), _meta: { ui: { resourceUri: UI_URI } } }] } }),
    onRequest: (req) => {
      if (req.method === 'resources/list') return { result: { resources: [{ uri: UI_URI, name: 'forecast-view', mimeType: 'text/html;profile=mcp-app' }] } };
      if (req.method === 'resources/templates/list') return { result: { resourceTemplates: [] } };
      if (req.method === 'resources/read' && req.params?.uri === UI_URI) {
        return { result: { contents: [{ uri: UI_URI, mimeType: 'text/html;profile=mcp-app', text: HTML }] } };
      }
      if (req.method === 'tools/call') {
        return { result: { content: [{ type: 'text', text: 'Sunny' }, { type: 'resource_link', uri: UI_URI, name: 'forecast-view' }] } };
      }
      return undefined;
    },
  });
}

describe('a virtual server with an MCP App among its members', () => {
  let t: TestApp;
  let app: RawServer;
  let a: TenantKey;
  let virtualId: string;
  const url = () => `${t.baseUrl}/mcp/v/${virtualId}`;

  beforeAll(async () => {
    app = await startWeatherApp();
    t = await startTestApp({ env: { MCP_OUTBOUND_ALLOW: '127.0.0.1' } });
    a = await makeTenant(t);
    const server = await registerAndDiscover(t, { name: 'Weather', transport: 'streamable-http', url: app.url }, a.key);
    expect(server.status).toBe('MCP_SERVER_CONNECTION_STATUS_CONNECTED');
    virtualId = (await t.request('POST', '/api/v1/virtual-servers', { key: a.key, body: { name: 'apps', servers: [server.id] } })).body.id;
    await waitFor('the tool listed', async () => (await t.request('GET', `/api/v1/virtual-servers/${virtualId}/tools`, { key: a.key })).body.tools.length === 1);
  });
  afterAll(async () => {
    await t?.close();
    await app?.close();
  });

  it('lists its ui:// resource as a ui:// resource that reads back through the virtual server, in both eras', async () => {
    const legacy = await sdk1Client(url(), a.key);
    const modern = await sdk2Client(url(), a.key, 'pinned');
    try {
      for (const client of [legacy, modern]) {
        const { resources } = await client.listResources();
        expect(resources).toEqual([expect.objectContaining({ uri: 'ui://weather/weather/forecast.html', name: 'forecast-view', mimeType: 'text/html;profile=mcp-app' })]);
        const read = await client.readResource({ uri: resources[0].uri });
        expect(read.contents).toEqual([{ uri: 'ui://weather/weather/forecast.html', mimeType: 'text/html;profile=mcp-app', text: HTML }]);
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it("rewrites a tool's UI link and the resource links of its results, so that the host reads the UI through the virtual server", async () => {
    const client = await sdk1Client(url(), a.key);
    try {
      // The tool's link to its UI names the virtual server's URI of it.
      const [tool] = (await client.listTools()).tools;
      expect(tool._meta).toMatchObject({ ui: { resourceUri: 'ui://weather/weather/forecast.html' } });
      const result = await client.callTool({ name: 'weather__forecast', arguments: { value: 'Paris' } });
      expect(result.content).toEqual([
        { type: 'text', text: 'Sunny' },
        { type: 'resource_link', uri: 'ui://weather/weather/forecast.html', name: 'forecast-view' },
      ]);
      const read = await client.readResource({ uri: (result.content as { uri?: string }[])[1].uri! });
      expect(read.contents[0]).toMatchObject({ text: HTML });
    } finally {
      await client.close();
    }
  });
});
