/**
 * How a virtual server shows its members' resource URIs (and URI templates): with the member's prefix put in,
 * so that a read of the URI it listed comes back to the member that listed it.
 *
 * - `scheme://rest` becomes `scheme://<prefix>/rest`: the scheme stays, so that a client still sees a `ui://`
 *   resource of an MCP App as one (and `file://`, `https://` as what they are).
 * - A URI without `//` after its scheme (`urn:…`, `data:…`) becomes `mcp-registry-v://<prefix>/<uri>`.
 *
 * Templates are rewritten the same way (their variables are in the part that is kept), so an expansion of a
 * rewritten template is the rewritten expansion of the original.
 */
const HIERARCHICAL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s;
const OPAQUE_SCHEME = 'mcp-registry-v';
const REWRITTEN = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([a-z0-9_-]+)\/(.*)$/s;

export function rewriteUri(prefix: string, uri: string): string {
  const m = HIERARCHICAL.exec(uri);
  if (m && m[1].toLowerCase() !== OPAQUE_SCHEME) return `${m[1]}://${prefix}/${m[2]}`;
  return `${OPAQUE_SCHEME}://${prefix}/${uri}`;
}

/** The member prefix and the original URI of a rewritten one; undefined when it is not one of ours. */
export function resolveUri(uri: string): { prefix: string; uri: string } | undefined {
  const m = REWRITTEN.exec(uri);
  if (!m) return undefined;
  const [, scheme, prefix, rest] = m;
  if (scheme.toLowerCase() === OPAQUE_SCHEME) return { prefix, uri: rest };
  return { prefix, uri: `${scheme}://${rest}` };
}

type Json = unknown;

/**
 * The URIs inside MCP content rewritten for a member: `resource_link` items and embedded resources (in tool
 * results and prompt messages) and the `uri` of read contents, so that a client reading one of them is routed
 * back to the member. Everything else is left as it came.
 */
export function rewriteContentUris<T>(prefix: string, value: T): T {
  const visit = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(visit);
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, Json>;
    if (o.type === 'resource_link' && typeof o.uri === 'string') return { ...o, uri: rewriteUri(prefix, o.uri) };
    if (o.type === 'resource' && o.resource && typeof o.resource === 'object') {
      const r = o.resource as Record<string, Json>;
      return typeof r.uri === 'string' ? { ...o, resource: { ...r, uri: rewriteUri(prefix, r.uri) } } : o;
    }
    return o;
  };
  const root = value as Record<string, Json>;
  if (!root || typeof root !== 'object') return value;
  const out: Record<string, Json> = { ...root };
  if (Array.isArray(root.content)) out.content = visit(root.content);
  if (Array.isArray(root.messages)) out.messages = (root.messages as Json[]).map((m) => (m && typeof m === 'object' ? { ...(m as object), content: visit((m as Record<string, Json>).content) } : m));
  if (Array.isArray(root.contents)) {
    out.contents = (root.contents as Json[]).map((c) => {
      const item = c as Record<string, Json>;
      return item && typeof item.uri === 'string' ? { ...item, uri: rewriteUri(prefix, item.uri) } : c;
    });
  }
  return out as T;
}

/**
 * A tool definition's MCP Apps link to its UI resource (`_meta.ui.resourceUri`, and the older
 * `_meta["ui/resourceUri"]`) rewritten for its member, so that the host reads the UI through the virtual server.
 */
export function rewriteToolMeta(prefix: string, meta: Record<string, unknown>): Record<string, unknown> {
  const out = { ...meta };
  const ui = meta.ui as Record<string, unknown> | undefined;
  if (ui && typeof ui === 'object' && typeof ui.resourceUri === 'string') out.ui = { ...ui, resourceUri: rewriteUri(prefix, ui.resourceUri) };
  if (typeof meta['ui/resourceUri'] === 'string') out['ui/resourceUri'] = rewriteUri(prefix, meta['ui/resourceUri']);
  return out;
}
