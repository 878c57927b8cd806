import { type ReactNode, useId, useState } from 'react';
import { asSchema, type JsonSchema, typeOf } from './schema';

/**
 * A form generated from a tool's inputSchema: strings, numbers, integers, booleans, enums, arrays and nested
 * objects get their own inputs; anything else (anyOf, oneOf, schemas without a type) gets a JSON box.
 * The value is built as the tool's arguments, leaving out optional fields that were left empty.
 */
export function SchemaForm({ schema, value, onChange }: { schema: unknown; value: Record<string, unknown>; onChange: (v: Record<string, unknown>) => void }) {
  const s = asSchema(schema);
  return <ObjectFields schema={s} value={value} onChange={onChange} path="" depth={0} />;
}

interface FieldProps<T> {
  schema: JsonSchema;
  value: T;
  onChange: (v: T | undefined) => void;
  path: string;
  depth: number;
}

function ObjectFields({ schema, value, onChange, path, depth }: { schema: JsonSchema; value: Record<string, unknown>; onChange: (v: Record<string, unknown>) => void; path: string; depth: number }) {
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  // Required fields first (the stored schema's key order is not the server's: PostgreSQL's jsonb reorders keys).
  const entries = Object.entries(schema.properties ?? {}).sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)));
  if (entries.length === 0) return <p className="muted">This tool takes no parameters.</p>;
  return (
    <>
      {entries.map(([name, child]) => (
        <SchemaField
          key={name}
          name={name}
          required={required.has(name)}
          schema={asSchema(child)}
          value={value[name]}
          path={path ? `${path}.${name}` : name}
          depth={depth}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[name];
            else next[name] = v;
            onChange(next);
          }}
        />
      ))}
    </>
  );
}

function SchemaField({ name, required, schema, value, onChange, path, depth }: FieldProps<unknown> & { name: string; required: boolean }) {
  const id = useId();
  const t = typeOf(schema);
  const label = (
    <>
      {schema.title && typeof schema.title === 'string' ? `${schema.title} (${name})` : name}
      {required && <span className="required" aria-label="required"> *</span>}
    </>
  );
  const hint = typeof schema.description === 'string' && schema.description ? <p className="hint" id={`${id}-hint`}>{schema.description}</p> : null;
  const aria = { id, 'aria-describedby': hint ? `${id}-hint` : undefined, 'aria-required': required || undefined, 'data-path': path };

  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const index = schema.enum.findIndex((v) => JSON.stringify(v) === JSON.stringify(value));
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <select {...aria} value={index < 0 ? '' : String(index)} onChange={(e) => onChange(e.target.value === '' ? undefined : schema.enum![Number(e.target.value)])}>
          <option value="">{required ? 'Choose…' : '(not set)'}</option>
          {schema.enum.map((v, i) => (
            <option key={i} value={String(i)}>
              {typeof v === 'string' ? v : JSON.stringify(v)}
            </option>
          ))}
        </select>
        {hint}
      </div>
    );
  }
  if (t === 'boolean') {
    return (
      <div className="field checkbox">
        <input {...aria} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        <label htmlFor={id}>{label}</label>
        {hint}
      </div>
    );
  }
  if (t === 'string') {
    const long = (typeof schema.maxLength === 'number' && schema.maxLength > 200) || schema.format === 'textarea';
    const props = {
      ...aria,
      value: typeof value === 'string' ? value : '',
      onChange: (e: { target: { value: string } }) => onChange(e.target.value === '' && !required ? undefined : e.target.value),
    };
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {long ? <textarea rows={4} {...props} /> : <input type={schema.format === 'uri' ? 'url' : 'text'} {...props} />}
        {hint}
      </div>
    );
  }
  if (t === 'number' || t === 'integer') {
    return <NumberField aria={aria} label={label} hint={hint} integer={t === 'integer'} schema={schema} value={value} onChange={onChange} />;
  }
  if (t === 'array' && depth < 5) {
    const items = Array.isArray(value) ? value : [];
    const itemSchema = asSchema(schema.items);
    return (
      <fieldset className="array" data-path={path}>
        <legend>{label}</legend>
        {hint}
        {items.map((item, i) => (
          <div key={i} className="array-item">
            <SchemaField
              name={`${name}[${i}]`}
              required
              schema={itemSchema}
              value={item}
              path={`${path}[${i}]`}
              depth={depth + 1}
              onChange={(v) => {
                const next = [...items];
                next[i] = v;
                onChange(next);
              }}
            />
            <button type="button" onClick={() => { const next = items.filter((_, k) => k !== i); onChange(next.length || required ? next : undefined); }}>
              Remove {name}[{i}]
            </button>
          </div>
        ))}
        <button type="button" onClick={() => onChange([...items, initialValue(itemSchema)])}>
          Add to {name}
        </button>
      </fieldset>
    );
  }
  if (t === 'object' && schema.properties && depth < 5) {
    const obj = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    return (
      <fieldset className="object" data-path={path}>
        <legend>{label}</legend>
        {hint}
        <ObjectFields schema={schema} value={obj} path={path} depth={depth + 1} onChange={(v) => onChange(Object.keys(v).length || required ? v : undefined)} />
      </fieldset>
    );
  }
  return <JsonField aria={aria} label={label} hint={hint} value={value} onChange={onChange} />;
}

function NumberField({ aria, label, hint, integer, schema, value, onChange }: { aria: Record<string, unknown>; label: ReactNode; hint: ReactNode; integer: boolean; schema: JsonSchema; value: unknown; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(typeof value === 'number' ? String(value) : '');
  const [bad, setBad] = useState(false);
  return (
    <div className={`field${bad ? ' invalid' : ''}`}>
      <label htmlFor={aria.id as string}>{label}</label>
      <input
        {...aria}
        type="number"
        step={integer ? 1 : 'any'}
        min={typeof schema.minimum === 'number' ? schema.minimum : undefined}
        max={typeof schema.maximum === 'number' ? schema.maximum : undefined}
        value={text}
        aria-invalid={bad || undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value === '') {
            setBad(false);
            onChange(undefined);
            return;
          }
          const n = Number(e.target.value);
          const okay = Number.isFinite(n) && (!integer || Number.isInteger(n));
          setBad(!okay);
          if (okay) onChange(n);
        }}
      />
      {bad && <p className="field-error">{integer ? 'A whole number' : 'A number'}</p>}
      {hint}
    </div>
  );
}

function JsonField({ aria, label, hint, value, onChange }: { aria: Record<string, unknown>; label: ReactNode; hint: ReactNode; value: unknown; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(value === undefined ? '' : JSON.stringify(value, null, 2));
  const [bad, setBad] = useState<string | null>(null);
  return (
    <div className={`field${bad ? ' invalid' : ''}`}>
      <label htmlFor={aria.id as string}>{label} (JSON)</label>
      <textarea
        {...aria}
        rows={3}
        className="mono"
        value={text}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          if (!e.target.value.trim()) {
            setBad(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(e.target.value));
            setBad(null);
          } catch (err) {
            setBad(err instanceof Error ? err.message : 'not JSON');
          }
        }}
      />
      {bad && <p className="field-error">Not JSON: {bad}</p>}
      {hint}
    </div>
  );
}

export function initialValue(schema: JsonSchema): unknown {
  const t = typeOf(schema);
  if (schema.default !== undefined) return schema.default;
  if (t === 'object') return {};
  if (t === 'array') return [];
  if (t === 'boolean') return false;
  if (t === 'number' || t === 'integer') return 0;
  if (t === 'string') return '';
  return null;
}
