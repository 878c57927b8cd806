import { OVERRIDE_META_KEY } from '@app/domain';

/**
 * Which tools are served, in one place: every reader of tools for callers (the search index and the tool catalog,
 * call routing, `availableTools`, the REST view, virtual servers) builds its statement from these fragments.
 *
 * A tool is served when
 * - its server is live: enabled, and its tool list comes from a successful discovery that no final failure has
 *   overruled (CONNECTED, or DISCOVERING again after having been discovered: a periodic re-discovery passes
 *   through DISCOVERING and must not make the tools vanish meanwhile);
 * - its definition as discovered is approved (the server's tool policy approves it, or its owner did): a pending
 *   or rejected definition is not served, and neither is the one approved before it (the upstream tool changed:
 *   the old definition would lie about what a call does);
 * - its owner has not disabled it.
 * What is served is the definition with the owner's override (title, description, annotations) over it, marked
 * in `_meta` under OVERRIDE_META_KEY with the fields overridden. Who may see the server is the caller's scope.
 *
 * Aliases: `s` the server, `t` the tool, `o` its override (LEFT JOIN TOOL_OVERRIDE_JOIN).
 */
export const LIVE_SERVER = `s.enabled AND (s.status = 'CONNECTED' OR (s.status = 'DISCOVERING' AND s.last_discovered_at IS NOT NULL))`;

/** Joins each tool `t` to its override `o` (if any). */
export const TOOL_OVERRIDE_JOIN = `LEFT JOIN tool_overrides o ON o.server_id = t.server_id AND o.tool_name = t.name`;

/** The tool's definition is approved and not disabled (with TOOL_OVERRIDE_JOIN). */
export const SERVED_TOOL = `t.approval = 'approved' AND NOT COALESCE(o.disabled, false)`;

/**
 * A tool's definition (jsonb) from the columns of a row aliased `r` that has the tools table's definition columns
 * (name, title, description, input_schema, output_schema, annotations, icons, execution, meta): absent fields are
 * absent, not null, and nested nulls stay as the server sent them.
 */
export function definitionJson(r: string): string {
  const optional = (field: string, column: string) => `CASE WHEN ${r}.${column} IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('${field}', ${r}.${column}) END`;
  return `(jsonb_build_object('name', ${r}.name, 'inputSchema', ${r}.input_schema)
    || ${optional('title', 'title')} || ${optional('description', 'description')} || ${optional('outputSchema', 'output_schema')}
    || ${optional('annotations', 'annotations')} || ${optional('icons', 'icons')} || ${optional('execution', 'execution')}
    || ${optional('_meta', 'meta')})`;
}

/** The fields an override `o` replaces, as a text[] (empty: none, or no override). */
const OVERRIDDEN_FIELDS = `array_remove(ARRAY[CASE WHEN o.title IS NOT NULL THEN 'title' END, CASE WHEN o.description IS NOT NULL THEN 'description' END,
  CASE WHEN o.annotations IS NOT NULL THEN 'annotations' END], NULL)`;

/** The definition of tool `t` as served (jsonb): the override's fields over it, marked in `_meta`. */
export const SERVED_DEFINITION = `(CASE WHEN cardinality(${OVERRIDDEN_FIELDS}) = 0 THEN ${definitionJson('t')} ELSE ${definitionJson('t')}
    || CASE WHEN o.title IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('title', o.title) END
    || CASE WHEN o.description IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('description', o.description) END
    || CASE WHEN o.annotations IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('annotations', o.annotations) END
    || jsonb_build_object('_meta', COALESCE(t.meta, '{}'::jsonb) || jsonb_build_object('${OVERRIDE_META_KEY}', jsonb_build_object('fields', to_jsonb(${OVERRIDDEN_FIELDS}))))
  END)`;

/** The served title and description of tool `t` (what a search ranks by), with its override. */
export const SERVED_TITLE = `COALESCE(o.title, t.title)`;
export const SERVED_DESCRIPTION = `COALESCE(o.description, t.description)`;
export const SERVED_ANNOTATIONS_TITLE = `(COALESCE(o.annotations, t.annotations)->>'title')`;

/**
 * A fingerprint of server `s`'s served tools: changes whenever a served definition, its override or the set of
 * served tools changes (from the hashes discovery stores with each tool).
 */
export const SERVED_TOOLS_HASH = `(SELECT md5(coalesce(string_agg(t.name || ':' || t.hash || ':' || COALESCE(extract(epoch FROM o.updated_at)::text, ''), ',' ORDER BY t.position, t.name), ''))
   FROM tools t ${TOOL_OVERRIDE_JOIN} WHERE t.server_id = s.id AND ${SERVED_TOOL})`;
