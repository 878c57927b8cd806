import { visibleSql } from '@app/database';
import { maySee, Viewer, viewerTenant } from '@app/domain';
import { Client } from 'pg';
import { createEmptyDatabase, ScratchDatabase } from './scratch-database';

/** Who may see a server is one rule: its SQL form (the repositories' reads) answers as maySee does in every case. */
describe('who may see a server', () => {
  let db: ScratchDatabase;
  let client: Client;
  beforeAll(async () => {
    db = await createEmptyDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
  }, 60_000);
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  const a = '11111111-1111-4111-8111-111111111111';
  const b = '22222222-2222-4222-8222-222222222222';
  const viewers: Viewer[] = [{ type: 'admin' }, { type: 'tenant', tenantId: a }, { type: 'tenant', tenantId: b }];
  const owners = [null, a, b];

  it('answers the same in SQL as in the domain, for the administrator, the owner, another tenant and the platform', async () => {
    const cases = viewers.flatMap((viewer) => owners.map((owner) => ({ viewer, owner })));
    const answers: { viewer: Viewer; owner: string | null; domain: boolean; sql: boolean }[] = [];
    for (const { viewer, owner } of cases) {
      const { rows } = await client.query<{ visible: boolean }>(`SELECT ${visibleSql('o.owner', '$2')} AS visible FROM (SELECT $1::uuid AS owner) o`, [owner, viewerTenant(viewer)]);
      answers.push({ viewer, owner, domain: maySee(viewer, owner), sql: rows[0].visible });
    }
    expect(answers.filter((x) => x.domain !== x.sql)).toEqual([]);
    // And the rule itself: the administrator sees all, a tenant the platform's and its own.
    expect(answers.map((x) => x.domain)).toEqual([true, true, true, true, true, false, true, false, true]);
  });
});
