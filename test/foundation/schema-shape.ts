import { get_dmmf } from '@prisma/prisma-schema-wasm';
import { Client } from 'pg';

/**
 * A database schema written as sorted lines, one fact per line (a table, a column with its type, nullability
 * and default, an enum value, an index, a foreign key), so that two schemas compare as two sets and a
 * difference reads as the lines that differ. One side comes from prisma/schema.prisma through Prisma's own
 * schema parser (the DMMF of @prisma/prisma-schema-wasm), the other from pg_catalog of a migrated database.
 */
export type SchemaShape = string[];

export interface ShapeDiff {
  /** What schema.prisma says and the database does not have. */
  missingFromDatabase: string[];
  /** What the database has and schema.prisma does not say. */
  notInSchema: string[];
}

export function diffShapes(expected: SchemaShape, actual: SchemaShape): ShapeDiff {
  const a = new Set(actual);
  const e = new Set(expected);
  return {
    missingFromDatabase: expected.filter((l) => !a.has(l)),
    notInSchema: actual.filter((l) => !e.has(l)),
  };
}

// ---- The DMMF, as much of it as the comparison reads ----

type DmmfDefault = string | number | boolean | unknown[] | { name: string; args: unknown[] };

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  default?: DmmfDefault;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  algorithm?: string;
  fields: { name: string; sortOrder?: 'asc' | 'desc' }[];
}

interface DmmfEnum {
  name: string;
  dbName?: string | null;
  values: { name: string; dbName: string | null }[];
}

interface Dmmf {
  datamodel: { models: DmmfModel[]; enums: DmmfEnum[]; indexes: DmmfIndex[] };
}

/** Parses a Prisma schema with Prisma's parser; throws Prisma's validation error when it is invalid. */
export function readDmmf(schema: string): Dmmf {
  return JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schema]] }))) as Dmmf;
}

// PostgreSQL's identifier limit; Prisma shortens generated constraint names to fit it.
const MAX_IDENTIFIER = 63;

/** Prisma's default constraint name: `{table}_{columns}_{suffix}`, the first part cut to fit 63 characters. */
function defaultName(table: string, columns: string[], suffix: 'pkey' | 'key' | 'idx'): string {
  const stem = suffix === 'pkey' ? table : `${table}_${columns.join('_')}`;
  return `${stem.slice(0, MAX_IDENTIFIER - suffix.length - 1)}_${suffix}`;
}

const SCALAR_TYPES: Record<string, string> = {
  String: 'text',
  Boolean: 'boolean',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric(65,30)',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
};

/**
 * PostgreSQL's spelling (as format_type writes it) of each Prisma native type attribute `@db.X(args)`; `()` stands
 * where the arguments go.
 */
const NATIVE_TYPES: Record<string, string> = {
  Text: 'text',
  Char: 'character()',
  VarChar: 'character varying()',
  Bit: 'bit()',
  VarBit: 'bit varying()',
  Uuid: 'uuid',
  Xml: 'xml',
  Inet: 'inet',
  Citext: 'citext',
  Boolean: 'boolean',
  Integer: 'integer',
  SmallInt: 'smallint',
  BigInt: 'bigint',
  Oid: 'oid',
  DoublePrecision: 'double precision',
  Real: 'real',
  Decimal: 'numeric()',
  Money: 'money',
  Timestamp: 'timestamp() without time zone',
  Timestamptz: 'timestamp() with time zone',
  Date: 'date',
  Time: 'time() without time zone',
  Timetz: 'time() with time zone',
  Json: 'json',
  JsonB: 'jsonb',
  ByteA: 'bytea',
};

/** PostgreSQL's spelling of a Prisma native type attribute `@db.X(args)`. */
function nativeType(name: string, args: string[]): string {
  if (!Object.hasOwn(NATIVE_TYPES, name)) return `unknown native type @db.${name}`;
  return NATIVE_TYPES[name].replace('()', args.length > 0 ? `(${args.join(',')})` : '');
}

/** A column default written the same way for both sides: casts dropped, now() for the current timestamp. */
export function normalizeDefault(sql: string): string {
  let s = sql.trim();
  if (/^nextval\(/i.test(s)) return 'autoincrement()';
  s = s.replace(/\bCURRENT_TIMESTAMP\b/gi, 'now()');
  s = s.replace(/::(?:"[^"]+"|[a-z_][a-z0-9_ ]*(?:\(\d+(?:,\s*\d+)?\))?)(?:\[\])?/gi, '');
  const quotedNumber = /^'(-?\d+(?:\.\d+)?)'$/.exec(s);
  return quotedNumber ? quotedNumber[1] : s;
}

function literal(value: unknown): string {
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** The database default Prisma Migrate gives a field, or undefined when the client fills it (uuid(), cuid()...). */
function expectedDefault(field: DmmfField): string | undefined {
  if (!field.hasDefaultValue || field.default === undefined) return undefined;
  const d = field.default;
  if (Array.isArray(d)) return `ARRAY[${d.map(literal).join(', ')}]`;
  if (typeof d === 'object' && d !== null) {
    if (d.name === 'now') return 'now()';
    if (d.name === 'autoincrement') return 'autoincrement()';
    if (d.name === 'dbgenerated' && typeof d.args[0] === 'string') return normalizeDefault(d.args[0]);
    return undefined;
  }
  return literal(d);
}

const REFERENTIAL_ACTIONS: Record<string, string> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
};

function indexLine(kind: 'primary key' | 'unique index' | 'index', name: string, table: string, columns: string[], method = 'btree', where?: string): string {
  return `${kind} ${name} on ${table} (${columns.join(', ')})${method === 'btree' ? '' : ` using ${method}`}${where ? ` where ${where}` : ''}`;
}

function fkLine(table: string, columns: string[], refTable: string, refColumns: string[], onDelete: string, onUpdate: string): string {
  // Without names: the DMMF does not carry a relation's `map:`, and the name is not what the data depends on.
  return `foreign key ${table} (${columns.join(', ')}) -> ${refTable} (${refColumns.join(', ')}) on delete ${onDelete} on update ${onUpdate}`;
}

/** The database schema that prisma/schema.prisma describes, as Prisma Migrate would create it on PostgreSQL. */
export function expectedShape(schema: string): SchemaShape {
  const { datamodel } = readDmmf(schema);
  const lines: string[] = [];
  const enumDbName = new Map(datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const models = new Map(datamodel.models.map((m) => [m.name, m]));
  const tableOf = (m: DmmfModel) => m.dbName ?? m.name;
  const columnOf = (m: DmmfModel, fieldName: string) => {
    const f = m.fields.find((x) => x.name === fieldName);
    return f?.dbName ?? fieldName;
  };

  for (const e of datamodel.enums) {
    lines.push(`enum ${e.dbName ?? e.name}`);
    for (const v of e.values) lines.push(`enum ${e.dbName ?? e.name} value ${v.dbName ?? v.name}`);
  }

  for (const m of datamodel.models) {
    const table = tableOf(m);
    lines.push(`table ${table}`);
    for (const f of m.fields) {
      if (f.kind === 'object') {
        if (f.relationFromFields && f.relationFromFields.length > 0) {
          const target = models.get(f.type)!;
          const from = f.relationFromFields.map((n) => columnOf(m, n));
          const to = (f.relationToFields ?? []).map((n) => columnOf(target, n));
          const required = f.relationFromFields.every((n) => m.fields.find((x) => x.name === n)?.isRequired);
          const onDelete = f.relationOnDelete ?? (required ? 'Restrict' : 'SetNull');
          const onUpdate = f.relationOnUpdate ?? 'Cascade';
          lines.push(fkLine(table, from, tableOf(target), to, REFERENTIAL_ACTIONS[onDelete], REFERENTIAL_ACTIONS[onUpdate]));
        }
        continue;
      }
      if (f.kind === 'unsupported') continue;
      const base =
        f.kind === 'enum'
          ? enumDbName.get(f.type)!
          : f.nativeType
            ? nativeType(f.nativeType[0], f.nativeType[1])
            : (SCALAR_TYPES[f.type] ?? `unknown type ${f.type}`);
      const type = f.isList ? `${base}[]` : base;
      // Prisma Migrate never puts NOT NULL on a scalar list column.
      const nullable = !f.isRequired || f.isList;
      const def = expectedDefault(f);
      lines.push(`column ${table}.${f.dbName ?? f.name} ${type} ${nullable ? 'NULL' : 'NOT NULL'}${def ? ` DEFAULT ${def}` : ''}`);
    }
  }

  for (const ix of datamodel.indexes) {
    const m = models.get(ix.model)!;
    const table = tableOf(m);
    const columns = ix.fields.map((f) => columnOf(m, f.name));
    const rendered = ix.fields.map((f, i) => (f.sortOrder === 'desc' ? `${columns[i]} DESC` : columns[i]));
    const method = (ix.algorithm ?? 'BTree').toLowerCase();
    if (ix.type === 'id') lines.push(indexLine('primary key', ix.dbName ?? defaultName(table, columns, 'pkey'), table, rendered));
    else if (ix.type === 'unique') lines.push(indexLine('unique index', ix.dbName ?? defaultName(table, columns, 'key'), table, rendered, method));
    else if (ix.type === 'normal') lines.push(indexLine('index', ix.dbName ?? defaultName(table, columns, 'idx'), table, rendered, method));
    else lines.push(`fulltext index on ${table} (${columns.join(', ')}) is not supported on PostgreSQL`);
  }
  return lines.sort();
}

const ACTION_CODES: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/** Tables the registry does not own through schema.prisma: Prisma Migrate's own ledger. */
const NOT_MODELLED = ['_prisma_migrations'];

/**
 * The `public` schema of a database, read from pg_catalog. Check constraints are left out, as Prisma
 * Migrate leaves them out: a migration may add them by hand without the schema saying so.
 */
export async function actualShape(client: Client): Promise<SchemaShape> {
  const lines: string[] = [];
  const unquote = (t: string) => t.replace(/"/g, '');

  const enums = await client.query<{ name: string; value: string | null }>(`
    SELECT t.typname AS name, e.enumlabel AS value
    FROM pg_type t
    JOIN pg_namespace n ON n.oid = t.typnamespace
    LEFT JOIN pg_enum e ON e.enumtypid = t.oid
    WHERE n.nspname = 'public' AND t.typtype = 'e'`);
  for (const name of new Set(enums.rows.map((r) => r.name))) lines.push(`enum ${name}`);
  for (const r of enums.rows) if (r.value !== null) lines.push(`enum ${r.name} value ${r.value}`);

  const tables = await client.query<{ name: string }>(`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> ALL($1::text[])`, [NOT_MODELLED]);
  for (const t of tables.rows) lines.push(`table ${t.name}`);

  const columns = await client.query<{
    table: string;
    column: string;
    type: string;
    not_null: boolean;
    default: string | null;
    identity: string;
    generated: string;
  }>(`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
           a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default,
           a.attidentity AS identity, a.attgenerated AS generated
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      AND c.relname <> ALL($1::text[])`, [NOT_MODELLED]);
  for (const c of columns.rows) {
    const def = c.default === null ? '' : ` DEFAULT ${normalizeDefault(c.default)}`;
    const extra = (c.identity ? ' IDENTITY' : '') + (c.generated ? ' GENERATED' : '');
    lines.push(`column ${c.table}.${c.column} ${unquote(c.type)} ${c.not_null ? 'NOT NULL' : 'NULL'}${def}${extra}`);
  }

  const indexes = await client.query<{
    table: string;
    name: string;
    unique: boolean;
    primary: boolean;
    method: string;
    columns: string[];
    predicate: string | null;
    expressions: string | null;
  }>(`
    SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary,
           am.amname AS method,
           ARRAY(
             SELECT a.attname::text || CASE WHEN (ix.indoption[k.pos - 1] & 1) = 1 THEN ' DESC' ELSE '' END
             FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, pos)
             JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
             ORDER BY k.pos
           ) AS columns,
           pg_get_expr(ix.indpred, ix.indrelid) AS predicate,
           pg_get_expr(ix.indexprs, ix.indrelid) AS expressions
    FROM pg_index ix
    JOIN pg_class i ON i.oid = ix.indexrelid
    JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_am am ON am.oid = i.relam
    WHERE n.nspname = 'public' AND t.relname <> ALL($1::text[])`, [NOT_MODELLED]);
  for (const ix of indexes.rows) {
    const kind = ix.primary ? 'primary key' : ix.unique ? 'unique index' : 'index';
    const cols = ix.expressions ? [...ix.columns, ix.expressions] : ix.columns;
    lines.push(indexLine(kind, ix.name, ix.table, cols, ix.method, ix.predicate ?? undefined));
  }

  const fks = await client.query<{
    table: string;
    columns: string[];
    ref_table: string;
    ref_columns: string[];
    on_delete: string;
    on_update: string;
  }>(`
    SELECT t.relname AS table, rt.relname AS ref_table,
           ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, pos)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.pos) AS columns,
           ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, pos)
                 JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.pos) AS ref_columns,
           c.confdeltype AS on_delete, c.confupdtype AS on_update
    FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid
    JOIN pg_class rt ON rt.oid = c.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.contype = 'f' AND n.nspname = 'public'`);
  for (const fk of fks.rows) {
    lines.push(fkLine(fk.table, fk.columns, fk.ref_table, fk.ref_columns, ACTION_CODES[fk.on_delete], ACTION_CODES[fk.on_update]));
  }

  return lines.sort();
}
