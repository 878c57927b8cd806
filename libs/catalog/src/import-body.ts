import type { FieldError } from '@app/domain';
import { convertClientEntry } from './client-config';
import { CatalogStatus, CATALOG_STATUSES, OFFICIAL_META } from './server-json';

export type ImportFormat = 'server.json' | 'server.json list' | 'registry list' | 'client config';

/** One item of an import, before validation: where it came from in the request and what it says. */
export interface ImportItem {
  /** `items.3`, `servers.2.server`, `mcpServers.github`: the place errors are named from. */
  at: string;
  doc: unknown;
  status: CatalogStatus;
  statusMessage?: string;
  /** A client-config entry that could not be described as a server.json. */
  error?: FieldError;
  /** Client-config values left out because they look secret. */
  withheld: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function officialStatus(meta: unknown): { status: CatalogStatus; statusMessage?: string } {
  const official = isObject(meta) ? meta[OFFICIAL_META] : undefined;
  if (!isObject(official)) return { status: 'active' };
  const status = CATALOG_STATUSES.find((s) => s === official.status) ?? 'active';
  return { status, ...(typeof official.statusMessage === 'string' ? { statusMessage: official.statusMessage.slice(0, 500) } : {}) };
}

/**
 * What an import request holds: one server.json, a list of them, a Registry API list page
 * (`{servers: [{server, _meta}]}`, the official registry's and our export's shape), or a client config
 * (`mcpServers` of Claude Desktop and Cursor, `servers` of VS Code's mcp.json).
 */
export function readImportBody(body: unknown): { format: ImportFormat; items: ImportItem[] } {
  if (Array.isArray(body)) {
    return {
      format: 'server.json list',
      items: body.map((doc, i) => (isObject(doc) && isObject(doc.server) ? { at: `${i}.server`, doc: doc.server, ...officialStatus(doc._meta), withheld: [] } : { at: `${i}`, doc, status: 'active', withheld: [] })),
    };
  }
  if (!isObject(body)) return { format: 'server.json', items: [{ at: '(root)', doc: body, status: 'active', withheld: [] }] };
  if (Array.isArray(body.servers)) {
    return {
      format: 'registry list',
      items: body.servers.map((entry, i) =>
        isObject(entry) && 'server' in entry
          ? { at: `servers.${i}.server`, doc: entry.server, ...officialStatus(entry._meta), withheld: [] }
          : { at: `servers.${i}`, doc: entry, status: 'active', withheld: [] },
      ),
    };
  }
  const clients = isObject(body.mcpServers) ? { key: 'mcpServers', entries: body.mcpServers } : isObject(body.servers) ? { key: 'servers', entries: body.servers } : undefined;
  if (clients && !('name' in body)) {
    return {
      format: 'client config',
      items: Object.entries(clients.entries).map(([key, raw]) => {
        const converted = convertClientEntry(key, raw);
        const at = `${clients.key}.${key}`;
        return {
          at,
          doc: converted.server,
          status: 'active',
          withheld: converted.withheld.map((w) => `${clients.key}.${w}`),
          ...(converted.error ? { error: { field: `${clients.key}.${converted.error.field}`, message: converted.error.message } } : {}),
        };
      }),
    };
  }
  return { format: 'server.json', items: [{ at: '(root)', doc: body, status: 'active', withheld: [] }] };
}
