import type { DiscoveredListings } from '@app/database';
import { ListedItem, ListingKind, LISTING_METHODS } from '@app/domain';
import { classifyError, McpFailureCode, McpSession } from '@app/mcp';
import { storableJson, storableText, UncleanableError } from './discovered-text';
import { canonicalJson } from './tool-definition';
import { ListingContext, listPages } from './tool-lister';

/** The largest single resource, template or prompt kept (canonical JSON); a bigger one is left out. */
export const MAX_ITEM_BYTES = 64 * 1024;
/** The longest key kept (a URI, a URI template, a prompt name). */
export const MAX_KEY_LENGTH = 2048;

/** How each kind is listed and what identifies one of its items. */
const KINDS: Record<ListingKind, { field: string; key: string; noun: string }> = {
  resource: { field: 'resources', key: 'uri', noun: 'resources' },
  resource_template: { field: 'resourceTemplates', key: 'uriTemplate', noun: 'resource templates' },
  prompt: { field: 'prompts', key: 'name', noun: 'prompts' },
};

export interface ItemListingContext extends ListingContext {
  /** The discovery's own deadline: once it has passed, the failure is the discovery's, not one list's. */
  discoverySignal: AbortSignal;
  /** The reason recorded for a list that failed with `err`. */
  explain(err: unknown, method: string): string;
}

/** One list as read: the items kept, and why it stopped early or left items out (none: read whole). */
interface ListRead {
  items: ListedItem[] | null;
  error?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why an item cannot be kept (undefined: it can), after cleaning. */
function refusal(item: Record<string, unknown>, keyField: string): string | undefined {
  const key = item[keyField];
  if (typeof key !== 'string' || key.length === 0) return `${keyField} is missing or not a string`;
  if (key.length > MAX_KEY_LENGTH) return `${keyField} is longer than ${MAX_KEY_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(key)) return `${keyField} contains control characters`;
  if (Buffer.byteLength(canonicalJson(item)) > MAX_ITEM_BYTES) return `the entry is larger than ${MAX_ITEM_BYTES / 1024} KiB`;
  return undefined;
}

/**
 * Reads every page of one list within the bounds. A list that stops early (a page or item bound, a server error,
 * the time for lists running out) keeps what was read before it stopped and says why; nothing read and a failure
 * is an unknown list (null). A 401 or 403 is the whole session's problem and is thrown (OAuth handling), as is the
 * discovery's own deadline.
 */
async function readList(session: McpSession, kind: ListingKind, ctx: ItemListingContext): Promise<ListRead> {
  const { field, key, noun } = KINDS[kind];
  const method = LISTING_METHODS[kind];
  const items: ListedItem[] = [];
  const seen = new Set<string>();
  let listed = 0;
  let left = 0;
  let firstLeft: string | undefined;
  const leaveOut = (why: string) => {
    left++;
    firstLeft ??= why;
  };
  const leftOut = () => (left > 0 ? `${left} of the listed ${noun} were left out (the first: ${firstLeft})` : undefined);
  try {
    for await (const { page, result } of listPages(session, method, ctx)) {
      const raw = result[field];
      if (!Array.isArray(raw)) return { items: items.length ? items : null, error: `the answer to ${method} page ${page} has no ${field} array` };
      for (const entry of raw) {
        const index = listed++;
        if (items.length >= ctx.limits.maxItems) {
          const error = `the server lists more than ${ctx.limits.maxItems} ${noun}, the most the registry keeps for one server; the first ${ctx.limits.maxItems} are kept`;
          return { items, error: [error, leftOut()].filter(Boolean).join('; ') };
        }
        let cleaned: unknown;
        try {
          cleaned = storableJson(entry, `${field}[${index}]`, ctx.redact);
        } catch (err) {
          if (!(err instanceof UncleanableError)) throw err;
          leaveOut(`${err.field} ${err.why}`);
          continue;
        }
        if (!isObject(cleaned)) {
          leaveOut(`${field}[${index}] is not an object`);
          continue;
        }
        const why = refusal(cleaned, key);
        if (why) {
          leaveOut(`${field}[${index}]: ${why}`);
          continue;
        }
        const id = cleaned[key] as string;
        if (seen.has(id)) {
          leaveOut(`${field}[${index}]: duplicate ${key}`);
          continue;
        }
        seen.add(id);
        items.push({ key: id, definition: cleaned });
      }
    }
    return { items, error: leftOut() };
  } catch (err) {
    if (ctx.discoverySignal.aborted) throw err;
    const failure = session.transportFailure() ?? classifyError(err, method, ctx.redact);
    if (failure.code === McpFailureCode.Unauthorized || failure.code === McpFailureCode.Forbidden) throw err;
    // A server with resources but no templates may not know the method at all: it has no templates.
    if (kind === 'resource_template' && items.length === 0 && (err as { code?: unknown })?.code === -32601) return { items: [] };
    const error = [storableText(ctx.explain(err, method)), leftOut()].filter(Boolean).join('; ');
    return { items: items.length ? items : null, error };
  }
}

/**
 * Lists what the server declares besides tools: resources and resource templates under `resources`, prompts
 * under `prompts`; a list the server does not declare is not asked for. One list failing or flooding never fails
 * the discovery (tools are what discovery must get): its reason is recorded and the other lists are read.
 */
export async function listItems(session: McpSession, ctx: ItemListingContext): Promise<DiscoveredListings> {
  const caps = session.capabilities;
  const errors: Record<string, string> = {};
  const read = async (kind: ListingKind, declared: boolean): Promise<ListedItem[] | null> => {
    if (!declared) return null;
    const out = await readList(session, kind, ctx);
    // cut, then cleaned again: a cut may split a surrogate pair, which PostgreSQL's jsonb refuses
    if (out.error) errors[LISTING_METHODS[kind]] = out.error.length > 1000 ? storableText(out.error.slice(0, 1000)) + '…' : out.error;
    return out.items;
  };
  const resources = await read('resource', Boolean(caps.resources));
  const resourceTemplates = await read('resource_template', Boolean(caps.resources));
  const prompts = await read('prompt', Boolean(caps.prompts));
  return { resources, resourceTemplates, prompts, errors: Object.keys(errors).length ? errors : null };
}
