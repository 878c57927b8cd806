import { createHash } from 'node:crypto';

/** The longest tool name a virtual server lists: what the strictest clients accept (Claude, OpenAI). */
export const MAX_TOOL_NAME = 64;
/** Between a member's prefix and its tool's name. */
export const SEPARATOR = '__';
/** A prefix taken from a server's name is at most this long. */
const PREFIX_FROM_NAME = 20;
/** The characters every client accepts in a tool name. */
const VALID = /^[A-Za-z0-9_-]+$/;

function hex(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** A server's name as a prefix: lower case, runs of other characters as one `_`, at most 20 characters. */
function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, PREFIX_FROM_NAME)
    .replace(/_+$/, '');
  return s || 'server';
}

/**
 * The prefix of each member server: its name made short and safe. Members whose names give the same prefix
 * (a tenant's "github" beside the platform's, or long names alike in their first 20 characters) each get 6
 * hex digits of their id's hash after a shorter form of it. A prefix depends only on the server's id and name
 * and on which other members share it: never on order, status or discovery.
 */
export function memberPrefixes(servers: { id: string; name: string }[]): Map<string, string> {
  const byId = new Map(servers.map((s) => [s.id, s.name]));
  const slugs = new Map<string, string>();
  const count = new Map<string, number>();
  for (const [id, name] of byId) {
    const s = slug(name);
    slugs.set(id, s);
    count.set(s, (count.get(s) ?? 0) + 1);
  }
  const out = new Map<string, string>();
  for (const [id, s] of slugs) {
    out.set(id, count.get(s)! > 1 ? `${s.slice(0, 15).replace(/_+$/, '')}_${hex(id, 6)}` : s);
  }
  return out;
}

/**
 * The name a member's tool is listed under: `prefix__tool` when that is at most 64 valid characters; else
 * the tool's name with other characters as `_`, cut to fit, and 6 hex digits of its hash (so that two tools
 * cut alike stay apart). Depends on the prefix and the tool's name only.
 */
export function exposedToolName(prefix: string, toolName: string): string {
  const plain = `${prefix}${SEPARATOR}${toolName}`;
  if (VALID.test(toolName) && plain.length <= MAX_TOOL_NAME) return plain;
  const room = MAX_TOOL_NAME - prefix.length - SEPARATOR.length - 7;
  const cleaned = toolName.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, Math.max(room, 0));
  return `${prefix}${SEPARATOR}${cleaned}_${hex(toolName, 6)}`;
}

export interface NamedTool {
  serverId: string;
  toolName: string;
  name: string;
}

/**
 * The listed names of some tools, in their order, each unique: a name already given (a tool literally
 * named like another's cut-down form) is replaced by the prefix and a hash of the server and tool.
 */
export function nameTools(tools: { serverId: string; toolName: string }[], prefixes: Map<string, string>): NamedTool[] {
  const taken = new Set<string>();
  return tools.map((t) => {
    const prefix = prefixes.get(t.serverId) ?? hex(t.serverId, 8);
    let name = exposedToolName(prefix, t.toolName);
    if (taken.has(name)) name = `${prefix}${SEPARATOR}${hex(`${t.serverId}\u0000${t.toolName}`, 16)}`;
    taken.add(name);
    return { ...t, name };
  });
}

/**
 * The members a listed name can belong to: those whose prefix is the text before its first separator. A prefix
 * never holds the separator nor ends with `_` (see memberPrefixes), so that text is the prefix of whichever
 * member listed the name; more than one member only in the unlikely case that two prefixes came out alike.
 */
export function serversNamedBy(name: string, prefixes: Map<string, string>): string[] {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return [];
  const prefix = name.slice(0, at);
  return [...prefixes].filter(([, p]) => p === prefix).map(([serverId]) => serverId);
}
