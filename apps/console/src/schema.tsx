import { Columns } from './ui';
/** JSON Schema as a server sent it: untrusted, any shape. Only what the console reads is typed. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  [other: string]: unknown;
}

export function asSchema(value: unknown): JsonSchema {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonSchema) : {};
}

/** The schema's type, with `["string", "null"]` read as string. */
export function typeOf(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (typeof schema.type === 'string') return schema.type;
  if (schema.properties) return 'object';
  if (Array.isArray(schema.enum)) return 'enum';
  return undefined;
}

function describe(schema: JsonSchema): string {
  const t = typeOf(schema);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (t === 'array') return `array of ${describe(asSchema(schema.items))}`;
  const variants = schema.anyOf ?? schema.oneOf;
  if (!t && Array.isArray(variants)) return variants.map((v) => describe(asSchema(v))).join(' | ');
  return (t ?? 'any') + (schema.format ? ` (${String(schema.format)})` : '');
}

/** A schema as a table of its properties (nested objects indented), its raw JSON a click away. */
export function SchemaView({ schema, label }: { schema: unknown; label: string }) {
  const s = asSchema(schema);
  const rows: { path: string; depth: number; schema: JsonSchema; required: boolean }[] = [];
  const walk = (node: JsonSchema, prefix: string, depth: number) => {
    if (depth > 6 || rows.length > 200) return;
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const entries = Object.entries(node.properties ?? {}).sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)));
    for (const [name, child] of entries) {
      const c = asSchema(child);
      rows.push({ path: prefix + name, depth, schema: c, required: required.has(name) });
      if (typeOf(c) === 'object') walk(c, prefix + name + '.', depth + 1);
      if (typeOf(c) === 'array' && typeOf(asSchema(c.items)) === 'object') walk(asSchema(c.items), prefix + name + '[].', depth + 1);
    }
  };
  walk(s, '', 0);
  return (
    <div className="schema">
      {rows.length === 0 ? (
        <p className="muted">{typeOf(s) === 'object' || !typeOf(s) ? 'No parameters.' : describe(s)}</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">{label}</caption>
            <Columns names={['Field', 'Type', 'Required', 'Description']} />
            <tbody>
              {rows.map((r) => (
                <tr key={r.path}>
                  <td className="mono" style={{ paddingLeft: `${0.5 + r.depth}rem` }}>
                    {r.path}
                  </td>
                  <td>{describe(r.schema)}</td>
                  <td>{r.required ? 'yes' : ''}</td>
                  <td className="prewrap">{typeof r.schema.description === 'string' ? r.schema.description : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <details>
        <summary>{label}: JSON</summary>
        <pre className="json">{JSON.stringify(schema, null, 2)}</pre>
      </details>
    </div>
  );
}
