/**
 * What a server lists besides its tools: resources (`resources/list`), resource templates
 * (`resources/templates/list`) and prompts (`prompts/list`).
 */
export type ListingKind = 'resource' | 'resource_template' | 'prompt';

export const LISTING_KINDS: readonly ListingKind[] = ['resource', 'resource_template', 'prompt'];

/** The MCP list method of each kind, as it names the kind in reasons (`listingErrors`). */
export const LISTING_METHODS: Record<ListingKind, string> = {
  resource: 'resources/list',
  resource_template: 'resources/templates/list',
  prompt: 'prompts/list',
};

/**
 * One listed item, as discovery stored it: `key` identifies it within its kind (a resource's `uri`, a template's
 * `uriTemplate`, a prompt's `name`); `definition` is the item the server sent (every field it sent, cleaned of
 * what cannot be stored and of the server's own secrets).
 */
export interface ListedItem {
  key: string;
  definition: Record<string, unknown>;
}

const OPERATORS: Record<string, string> = {
  // Simple expansion percent-encodes reserved characters: a value never holds `/`, `?` or `#`.
  '': '[^/?#]*',
  '+': '[^#]*',
  '#': '(?:#.*)?',
  '.': '(?:\\.[^/?#]*)*',
  '/': '(?:/[^?#]*)*',
  ';': '(?:;[^/?#]*)*',
  '?': '(?:\\?[^#]*)?',
  '&': '(?:&[^#]*)?',
};

/**
 * Whether `uri` is one of the URIs an RFC 6570 template (a resource template's `uriTemplate`) expands to, by the
 * shape of each expression's operator: `{id}` stands for a value without `/`, `?` or `#`, `{+path}` for any text
 * but a fragment, `{?a,b}` for a query, and so on. Literal text must match exactly.
 */
export function uriMatchesTemplate(uri: string, template: string): boolean {
  let pattern = '^';
  let rest = template;
  for (;;) {
    const open = rest.indexOf('{');
    if (open === -1) break;
    const close = rest.indexOf('}', open);
    if (close === -1) break;
    pattern += escapeRegex(rest.slice(0, open));
    const expression = rest.slice(open + 1, close);
    const operator = /^[+#./;?&]/.test(expression) ? expression[0] : '';
    pattern += OPERATORS[operator];
    rest = rest.slice(close + 1);
  }
  pattern += escapeRegex(rest) + '$';
  return new RegExp(pattern, 's').test(uri);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
