import { migrate } from '@app/database-runtime';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { createEmptyDatabase, ScratchDatabase } from './scratch-database';
import { actualShape, diffShapes, expectedShape, normalizeDefault, SchemaShape } from './schema-shape';

const SCHEMA = readFileSync(join(__dirname, '..', '..', 'prisma', 'schema.prisma'), 'utf8');

/** Rewrites one piece of the schema text, failing loudly when the piece is not there. */
function edit(schema: string, from: RegExp, to: string): string {
  expect(schema).toMatch(from);
  return schema.replace(from, to);
}

describe('the migrated database matches prisma/schema.prisma', () => {
  let db: ScratchDatabase;
  let client: Client;
  let expected: SchemaShape;

  beforeAll(async () => {
    expected = expectedShape(SCHEMA);
    db = await createEmptyDatabase();
    await migrate(db.url);
    client = new Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('has every table, column, type, nullability, default, enum, index and foreign key the schema describes, and nothing else', async () => {
    const diff = diffShapes(expected, await actualShape(client));
    // On failure jest prints both lists: each line is one table, column, enum value, index or foreign key.
    expect(diff).toEqual({ missingFromDatabase: [], notInSchema: [] });
  });

  it('reads the whole schema (the comparison is not vacuous)', () => {
    const count = (prefix: string) => expected.filter((l) => l.startsWith(prefix)).length;
    const models = SCHEMA.match(/^model \w+ \{/gm)!.length;
    const enums = SCHEMA.match(/^enum \w+ \{/gm)!.length;
    expect(count('table ')).toBe(models);
    expect(expected.filter((l) => /^enum \w+$/.test(l))).toHaveLength(enums);
    expect(count('primary key ')).toBe(models);
    expect(count('foreign key ')).toBeGreaterThan(0);
    expect(expected).toEqual(
      expect.arrayContaining([
        'column servers.args text[] NULL DEFAULT ARRAY[]',
        'column servers.status ServerStatus NOT NULL DEFAULT \'DISCOVERING\'',
        'column servers.env jsonb NOT NULL DEFAULT \'{}\'',
        'column tenants.created_at timestamp(3) with time zone NOT NULL DEFAULT now()',
        'column api_keys.tenant_id uuid NOT NULL',
        'unique index servers_owner_scope_name_key on servers (owner_scope, name)',
        'index discovery_runs_server_id_started_at_idx on discovery_runs (server_id, started_at DESC)',
        'foreign key api_keys (tenant_id) -> tenants (id) on delete CASCADE on update CASCADE',
        'enum ServerKind value INTEGRATION',
      ]),
    );
  });

  it('reports drift made in the database: a type, a nullability, a default, an index, an enum value, a foreign key, a column, a table', async () => {
    await client.query('BEGIN');
    try {
      await client.query(`
        ALTER TABLE tools ALTER COLUMN position TYPE bigint;
        ALTER TABLE tenants ALTER COLUMN name DROP NOT NULL;
        ALTER TABLE servers ALTER COLUMN enabled SET DEFAULT false;
        DROP INDEX api_keys_tenant_id_idx;
        ALTER TYPE "ServerStatus" ADD VALUE 'PAUSED';
        ALTER TABLE tools DROP CONSTRAINT tools_server_id_fkey;
        ALTER TABLE tools ADD CONSTRAINT tools_server_id_fkey FOREIGN KEY (server_id) REFERENCES servers(id)
          ON DELETE RESTRICT ON UPDATE CASCADE;
        ALTER TABLE audit_events ADD COLUMN note TEXT;
        CREATE TABLE stray (id INTEGER PRIMARY KEY);
      `);
      const diff = diffShapes(expected, await actualShape(client));
      expect(diff.missingFromDatabase.sort()).toEqual(
        [
          'column tools.position integer NOT NULL',
          'column tenants.name text NOT NULL',
          'column servers.enabled boolean NOT NULL DEFAULT true',
          'index api_keys_tenant_id_idx on api_keys (tenant_id)',
          'foreign key tools (server_id) -> servers (id) on delete CASCADE on update CASCADE',
        ].sort(),
      );
      expect(diff.notInSchema.sort()).toEqual(
        [
          'column tools.position bigint NOT NULL',
          'column tenants.name text NULL',
          'column servers.enabled boolean NOT NULL DEFAULT false',
          'enum ServerStatus value PAUSED',
          'foreign key tools (server_id) -> servers (id) on delete RESTRICT on update CASCADE',
          'column audit_events.note text NULL',
          'table stray',
          'column stray.id integer NOT NULL',
          'primary key stray_pkey on stray (id)',
        ].sort(),
      );
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it('reports drift made in schema.prisma that no migration followed', async () => {
    let changed = edit(SCHEMA, /(model Tenant \{\n\s*id\s+String\s+@id @db.Uuid\n\s*name\s+String\s+@unique)\n/, '$1 @db.VarChar(200)\n  plan String?\n');
    changed = edit(changed, /(enum ServerStatus \{[^}]*)\}/, '$1  PAUSED\n}');
    changed = edit(changed, /(\n\s*@@map\("servers"\))/, '\n  @@index([kind])$1');
    changed = edit(changed, /(\btenant\s+Tenant\s+@relation\(fields: \[tenantId\], references: \[id\]), onDelete: Cascade\)/, '$1)');
    changed = edit(changed, /(\boutcome\s+String\s+@default\()"ok"\)/, '$1"done")');
    const diff = diffShapes(expectedShape(changed), await actualShape(client));
    expect(diff.missingFromDatabase.sort()).toEqual(
      [
        'column tenants.name character varying(200) NOT NULL',
        'column tenants.plan text NULL',
        'enum ServerStatus value PAUSED',
        'index servers_kind_idx on servers (kind)',
        'foreign key api_keys (tenant_id) -> tenants (id) on delete RESTRICT on update CASCADE',
        "column audit_events.outcome text NOT NULL DEFAULT 'done'",
      ].sort(),
    );
    expect(diff.notInSchema.sort()).toEqual(
      [
        'column tenants.name text NOT NULL',
        'foreign key api_keys (tenant_id) -> tenants (id) on delete CASCADE on update CASCADE',
        "column audit_events.outcome text NOT NULL DEFAULT 'ok'",
      ].sort(),
    );
  });

  it('writes defaults the same way from both sides', () => {
    expect(normalizeDefault("'DISCOVERING'::\"ServerStatus\"")).toBe("'DISCOVERING'");
    expect(normalizeDefault('ARRAY[]::text[]')).toBe('ARRAY[]');
    expect(normalizeDefault("'{}'::jsonb")).toBe("'{}'");
    expect(normalizeDefault('CURRENT_TIMESTAMP')).toBe('now()');
    expect(normalizeDefault("'-1'::integer")).toBe('-1');
    expect(normalizeDefault("nextval('t_id_seq'::regclass)")).toBe('autoincrement()');
    expect(normalizeDefault("'x'::character varying(20)")).toBe("'x'");
  });
});
