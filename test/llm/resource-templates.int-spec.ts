import { ServerListingRepository, Sql } from '@app/database';
import { uriMatchesTemplate } from '@app/domain';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { migratedDatabase } from '../foundation/scratch-database';
import { useStand } from '../support/stand';

/**
 * The check before a resource read: of a server's resource templates, only those that can expand to the URI are
 * read (their literal text before the first expression and after the last one), and none that can is left out.
 */
describe("the resource templates read to check a URI", () => {
  const s = useStand(async (keep) => {
    const { pool } = await migratedDatabase(keep, 2);
    const sql = new Sql(pool, 'per-connection');
    return { sql, listings: new ServerListingRepository(sql) };
  });

  async function serverWithTemplates(templates: string[]): Promise<string> {
    const id = randomUUID();
    await s.sql.query(
      `INSERT INTO servers (id, owner_scope, name, kind, transport, url, status) VALUES ($1, 'platform', $2, 'BUILT_IN', 'STREAMABLE_HTTP', 'http://x.test/mcp', 'CONNECTED')`,
      [id, `s-${id}`],
    );
    await s.sql.transaction((query) =>
      s.listings.replaceAll(query, id, {
        resources: [{ key: 'demo://resource/static/1', definition: {} }],
        resourceTemplates: templates.map((key) => ({ key, definition: { uriTemplate: key, name: key } })),
        prompts: null,
        errors: null,
      }),
    );
    return id;
  }

  it('reads only the templates whose literal ends fit the URI, in the server\'s order', async () => {
    const id = await serverWithTemplates([
      'demo://resource/dynamic/text/{id}',
      'demo://resource/dynamic/blob/{id}',
      'other://{x}',
      '{+path}',
      'file:///{name}.txt',
      'literal://exact',
      ...Array.from({ length: 200 }, (_, i) => `bulk://${i}/{id}`),
    ]);
    expect(await s.listings.templatesMatching(id, 'demo://resource/dynamic/text/7')).toEqual(['demo://resource/dynamic/text/{id}', '{+path}']);
    expect(await s.listings.templatesMatching(id, 'file:///a.txt')).toEqual(['{+path}', 'file:///{name}.txt']);
    expect(await s.listings.templatesMatching(id, 'file:///a.md')).toEqual(['{+path}']);
    expect(await s.listings.templatesMatching(id, 'literal://exact')).toEqual(['{+path}', 'literal://exact']);
    expect(await s.listings.templatesMatching(id, 'bulk://17/x')).toEqual(['{+path}', 'bulk://17/{id}']);
    // Not the server's resources, nor another server's templates.
    expect(await s.listings.templatesMatching(id, 'demo://resource/static/1')).toEqual(['{+path}']);
    expect(await s.listings.templatesMatching(randomUUID(), 'demo://resource/dynamic/text/7')).toEqual([]);
  });

  it('leaves out no template that matches the URI', async () => {
    const piece = fc.stringMatching(/^[a-z/:.{}+?#=&]{0,6}$/);
    const template = fc.array(fc.oneof(piece, fc.constantFrom('{id}', '{+path}', '{?q}', '{#f}', '{/seg}', '{.ext}')), { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
    const templates = fc.sample(template, { numRuns: 300, seed: 7 });
    const id = await serverWithTemplates([...new Set(templates)]);
    const uris = [
      // Expansions of the templates (their expressions replaced by values), and strings of the same letters.
      ...templates.flatMap((t) => fc.sample(fc.stringMatching(/^[a-z0-9/.]{0,4}$/), { numRuns: 2, seed: t.length }).map((v) => t.replace(/\{[^}]*\}/g, v))),
      ...fc.sample(fc.stringMatching(/^[a-z/:.{}+?#=&0-9]{0,12}$/), { numRuns: 200, seed: 11 }),
    ];
    for (const uri of uris) {
      const candidates = new Set(await s.listings.templatesMatching(id, uri));
      const matching = [...new Set(templates)].filter((t) => uriMatchesTemplate(uri, t));
      expect({ uri, missed: matching.filter((t) => !candidates.has(t)) }).toEqual({ uri, missed: [] });
    }
  });
});
