import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { load } from 'js-yaml';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateServerJson } from '@app/catalog';
import { RawServer, sampleTool, startRawServer } from '../fixtures/raw-mcp-server';
import { startTestApp, TestApp } from '../support/app';
import { makeTenant, registerServer, settled } from '../support/servers';

const FIXTURES = join(__dirname, '../fixtures/catalog');

/** The Registry API's own schemas (openapi.yaml, OpenAPI 3.1: JSON Schema 2020-12), compiled once. */
function registrySchemas() {
  const doc = load(readFileSync(join(FIXTURES, 'registry-openapi.yaml'), 'utf8')) as Record<string, unknown>;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'https://registry.local/openapi.json', components: (doc as { components: unknown }).components }, 'openapi');
  const of = (name: string) => ajv.getSchema(`https://registry.local/openapi.json#/components/schemas/${name}`)!;
  return { list: of('ServerList'), response: of('ServerResponse') };
}

describe('the official Registry API (/v0.1) served from the catalog and the registry', () => {
  let t: TestApp;
  let upstream: RawServer;
  const schemas = registrySchemas();
  const valid = (which: 'list' | 'response', body: unknown) => {
    const ok = schemas[which](body);
    return ok ? [] : schemas[which].errors;
  };

  beforeAll(async () => {
    upstream = await startRawServer({ name: 'v0-upstream', onToolsList: () => ({ result: { tools: [{ ...sampleTool('forecast'), title: 'Forecast' }, sampleTool('alerts')] } }) });
    t = await startTestApp({ worker: true, env: { MCP_OUTBOUND_ALLOW: '127.0.0.1', DISCOVERY_ATTEMPTS: '1' } });
    const published = readdirSync(join(FIXTURES, 'published'))
      .map((f) => JSON.parse(readFileSync(join(FIXTURES, 'published', f), 'utf8')))
      .filter((d) => validateServerJson(d).length === 0);
    const examples = readdirSync(join(FIXTURES, 'examples/valid')).map((f) => JSON.parse(readFileSync(join(FIXTURES, 'examples/valid', f), 'utf8')));
    const versions = ['1.0.0', '1.1.0', '2.0.0'].map((version) => ({
      name: 'io.github.acme/weather',
      description: 'Weather forecasts',
      version,
      remotes: [{ type: 'streamable-http', url: `http://127.0.0.1:{port}/mcp`, variables: { port: { isRequired: true, description: 'port' } } }],
    }));
    const res = await t.request('POST', '/api/v1/catalog/import', { body: [...published, ...examples, ...versions] });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
  });

  it('pages through every entry with cursor and limit; every answer validates against the Registry API schemas', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await t.request('GET', `/v0.1/servers?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(valid('list', res.body)).toEqual([]);
      expect(res.body.metadata.count).toBe(res.body.servers.length);
      names.push(...res.body.servers.map((s: { server: { name: string; version: string } }) => `${s.server.name}@${s.server.version}`));
      cursor = res.body.metadata.nextCursor;
      pages++;
    } while (cursor && pages < 50);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['io.github.acme/weather@1.0.0', 'io.github.acme/weather@1.1.0', 'io.github.acme/weather@2.0.0', 'io.github.domdomegg/time-mcp-pypi@1.0.6']));
    expect(names.length).toBeGreaterThanOrEqual(11);
    expect(pages).toBeGreaterThan(3);
  });

  it('filters by search, version=latest and updated_since', async () => {
    const latest = await t.request('GET', '/v0.1/servers?search=acme/weather&version=latest');
    expect(valid('list', latest.body)).toEqual([]);
    expect(latest.body.servers.map((s: any) => s.server.version)).toEqual(['2.0.0']);
    expect(latest.body.servers[0]._meta['io.modelcontextprotocol.registry/official']).toMatchObject({ status: 'active', isLatest: true });
    const future = await t.request('GET', `/v0.1/servers?updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body.servers).toEqual([]);
    const bad = await t.request('GET', '/v0.1/servers?updated_since=yesterday');
    expect(bad.status).toBe(400);
  });

  it('answers versions, one version and latest, URL-encoded names included, and 404 for an unknown one', async () => {
    const versions = await t.request('GET', '/v0.1/servers/io.github.acme%2Fweather/versions');
    expect(versions.status).toBe(200);
    expect(valid('list', versions.body)).toEqual([]);
    expect(versions.body.servers.map((s: any) => s.server.version).sort()).toEqual(['1.0.0', '1.1.0', '2.0.0']);
    const one = await t.request('GET', '/v0.1/servers/io.github.acme%2Fweather/versions/1.1.0');
    expect(valid('response', one.body)).toEqual([]);
    expect(one.body.server.version).toBe('1.1.0');
    const latest = await t.request('GET', '/v0.1/servers/io.github.domdomegg%2Ftime-mcp-pypi/versions/latest');
    expect(valid('response', latest.body)).toEqual([]);
    expect(latest.body.server.name).toBe('io.github.domdomegg/time-mcp-pypi');
    const unknown = await t.request('GET', '/v0.1/servers/io.github.acme%2Fnope/versions');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Server not found');
    expect((await t.request('GET', '/v0.1/servers/io.github.acme%2Fweather/versions/9.9.9')).status).toBe(404);
  });

  it("adds what discovery found for a tenant's server made from an entry, to that tenant only, and serves the registry's own servers", async () => {
    const tenant = await makeTenant(t);
    const made = await t.request('POST', '/api/v1/servers', { key: tenant.key, body: { fromCatalog: { name: 'io.github.acme/weather', inputs: { port: String(upstream.port) } } } });
    expect(made.status).toBe(201);
    expect((await settled(t, made.body.id)).status).toBe('CONNECTED');
    const seen = await t.request('GET', '/v0.1/servers/io.github.acme%2Fweather/versions/latest', { key: tenant.key });
    expect(valid('response', seen.body)).toEqual([]);
    expect(seen.body._meta['dev.mcp-registry/discovery']).toEqual({
      servers: [
        {
          serverId: made.body.id,
          name: 'weather',
          status: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED',
          statusReason: null,
          lastDiscoveredAt: expect.any(String),
          tools: [
            { name: 'forecast', title: 'Forecast', description: 'The forecast tool' },
            { name: 'alerts', description: 'The alerts tool' },
          ],
        },
      ],
    });
    const other = await makeTenant(t);
    const notSeen = await t.request('GET', '/v0.1/servers/io.github.acme%2Fweather/versions/latest', { key: other.key });
    expect(notSeen.body._meta['dev.mcp-registry/discovery']).toBeUndefined();

    // A server registered by hand is served as server.json built from its registration.
    const own = await registerServer(t, { name: 'hand made', transport: 'streamable-http', url: upstream.url, headers: { 'X-Team': 'blue' }, credentials: { bearerToken: 'never-shown-0001' } });
    expect((await settled(t, own.id)).status).toBe('CONNECTED');
    const doc = await t.request('GET', `/api/v1/servers/${own.id}/server.json`);
    expect(doc.status).toBe(200);
    expect(validateServerJson(doc.body)).toEqual([]);
    expect(doc.body).toMatchObject({
      name: 'registry.local/hand-made',
      remotes: [{ type: 'streamable-http', url: upstream.url, headers: [{ name: 'X-Team', value: 'blue' }, { name: 'Authorization', isSecret: true, isRequired: true, description: expect.any(String) }] }],
    });
    expect(doc.text).not.toContain('never-shown-0001');
    const listed = await t.request('GET', '/v0.1/servers/registry.local%2Fhand-made/versions/latest');
    expect(valid('response', listed.body)).toEqual([]);
    expect(listed.body._meta['dev.mcp-registry/discovery'].servers[0].tools.map((x: any) => x.name)).toEqual(['forecast', 'alerts']);
    // The server made from the catalog answers with its entry's server.json, which import takes back unchanged.
    const fromEntry = await t.request('GET', `/api/v1/servers/${made.body.id}/server.json`, { key: tenant.key });
    expect(fromEntry.body).toMatchObject({ name: 'io.github.acme/weather', version: '2.0.0' });
    const back = await t.request('POST', '/api/v1/catalog/import', { body: doc.body });
    expect(back.status).toBe(200);
  });
});
